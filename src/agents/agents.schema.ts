import * as v from 'valibot';
import { named, namedListPage } from '../platform/named-schema.js';
import { listQuery } from '../platform/pagination.js';
import { clientText } from '../platform/validation.js';

const Name = clientText({ trim: true, min: 1, max: 80, line: true });
const BusinessName = clientText({ trim: true, min: 1, max: 120, line: true });
const Description = clientText({ max: 2000 });

export const AgentCreateSchema = named(
  'AgentCreate',
  v.strictObject({
    name: Name,
    identity: v.strictObject({ businessName: BusinessName, description: v.optional(Description, '') }),
  }),
);

export const AgentPatchSchema = named(
  'AgentPatch',
  v.strictObject({
    name: v.optional(Name),
    identity: v.optional(v.strictObject({ businessName: v.optional(BusinessName), description: v.optional(Description) })),
  }),
);

export type AgentCreate = v.InferOutput<typeof AgentCreateSchema>;
export type AgentPatch = v.InferOutput<typeof AgentPatchSchema>;

export const AgentSchema = named(
  'Agent',
  v.object({
    id: v.string(),
    name: v.string(),
    identity: v.object({ businessName: v.string(), description: v.string() }),
    createdAt: v.string(),
    updatedAt: v.string(),
  }),
);

/** An agent as the API answers it. */
export type Agent = v.InferOutput<typeof AgentSchema>;

export const AgentListSchema = namedListPage('AgentList', AgentSchema);

export const AgentDeletedSchema = named('AgentDeleted', v.object({ agentId: v.string(), sourcesDeleted: v.number() }));

export const AgentListQuerySchema = listQuery();
