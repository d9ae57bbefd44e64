import * as v from 'valibot';
import { pageQuery } from '../platform/pagination.js';

const Name = v.pipe(v.string(), v.trim(), v.minLength(1, 'must be 1 to 80 characters'), v.maxLength(80, 'must be 1 to 80 characters'));
const BusinessName = v.pipe(v.string(), v.trim(), v.minLength(1, 'must be 1 to 120 characters'), v.maxLength(120, 'must be 1 to 120 characters'));
const Description = v.pipe(v.string(), v.maxLength(2000, 'must be at most 2000 characters'));

export const AgentCreateSchema = v.strictObject({
  name: Name,
  identity: v.strictObject({ businessName: BusinessName, description: v.optional(Description, '') }),
});

export const AgentPatchSchema = v.strictObject({
  name: v.optional(Name),
  identity: v.optional(v.strictObject({ businessName: v.optional(BusinessName), description: v.optional(Description) })),
});

export type AgentCreate = v.InferOutput<typeof AgentCreateSchema>;
export type AgentPatch = v.InferOutput<typeof AgentPatchSchema>;

export const AgentSchema = v.object({
  id: v.string(),
  name: v.string(),
  identity: v.object({ businessName: v.string(), description: v.string() }),
  createdAt: v.string(),
  updatedAt: v.string(),
});

export const AgentListSchema = v.object({ data: v.array(AgentSchema), hasMore: v.boolean(), nextCursor: v.nullable(v.string()) });

export const AgentDeletedSchema = v.object({ agentId: v.string(), sourcesDeleted: v.number() });

export const AgentListQuerySchema = pageQuery();
