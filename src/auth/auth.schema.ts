import * as v from 'valibot';
import { named, namedListPage } from '../platform/named-schema.js';
import { ScopeSchema, SCOPES } from '../platform/scopes.js';
import { parseIso } from '../platform/time.js';
import { clientText } from '../platform/validation.js';

export const KeyCreateSchema = named(
  'KeyCreate',
  v.strictObject({
    name: clientText({ trim: true, min: 1, max: 80, minMessage: 'required', message: 'at most 80 characters', line: true }),
    scopes: v.pipe(
      v.array(ScopeSchema, `each scope must be one of ${SCOPES.join(', ')}`),
      v.minLength(1, 'a key needs at least one scope; no scope never means every scope'),
    ),
    env: v.optional(v.picklist(['test', 'live']), 'test'),
    expiresAt: v.optional(
      v.nullable(
        v.pipe(
          v.string(),
          v.check((s) => parseIso(s) !== undefined, 'must be an RFC 3339 date-time'),
        ),
      ),
    ),
  }),
);

export type KeyCreateInput = v.InferOutput<typeof KeyCreateSchema>;

export const KeyRecordSchema = named(
  'Key',
  v.object({
    id: v.string(),
    name: v.string(),
    prefix: v.string(),
    env: v.picklist(['test', 'live']),
    scopes: v.array(v.string()),
    createdAt: v.string(),
    expiresAt: v.nullable(v.string()),
    revokedAt: v.nullable(v.string()),
  }),
);

export const KeyCreatedSchema = named('KeyCreated', v.object({ ...KeyRecordSchema.entries, secret: v.string() }));

export const IdentitySchema = named('Identity', v.object({ workspaceId: v.string(), scopes: v.array(v.string()) }));

export const KeyListSchema = namedListPage('KeyList', KeyRecordSchema);

/** `api_keys.scopes` as the service writes it: a JSON array of scopes, at least one, in `SCOPES` order. */
export const StoredScopesSchema = v.pipe(
  v.array(ScopeSchema, `each scope must be one of ${SCOPES.join(', ')}`),
  v.minLength(1, 'a key needs at least one scope'),
  v.check(
    (scopes) => scopes.every((s, i) => i === 0 || SCOPES.indexOf(s) > SCOPES.indexOf(scopes[i - 1]!)),
    'must list each scope once, in the order of the scope list',
  ),
);

/** The key name a console key is created with (older versions took any line: D-1182 checks what comes in now). */
export const StoredKeyNameSchema = clientText({ trim: true, min: 1, max: 80, minMessage: 'required', message: 'at most 80 characters' });
