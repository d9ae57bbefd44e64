import * as v from 'valibot';

export const SCOPES = [
  'projects:read',
  'projects:write',
  'landings:read',
  'landings:write',
  'knowledge:read',
  'knowledge:write',
  'assets:read',
  'assets:write',
  'brand:read',
  'brand:write',
  'analytics:read',
  'domains:write',
  'chat:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export const ScopeSchema = v.picklist(SCOPES);
