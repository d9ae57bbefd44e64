import * as v from 'valibot';
import { named } from '../platform/named-schema.js';
import { CAP_NAMES } from '../plans/plans.js';
import { ScopeSchema } from '../platform/scopes.js';
import { clientText } from '../platform/validation.js';

const Name = clientText({ min: 1, max: 80, line: true });
const Plan = clientText({ min: 1, max: 40, line: true });
/**
 * The largest number a workspace keeps: PostgreSQL's `integer` columns hold no more, and
 * a state document carries no more back (D-1080); the same bound on every store.
 */
export const WORKSPACE_NUMBER_MAX = 2_147_483_647;
const Count = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(WORKSPACE_NUMBER_MAX, `must be at most ${WORKSPACE_NUMBER_MAX}`));
const RateLimit = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(WORKSPACE_NUMBER_MAX, `must be at most ${WORKSPACE_NUMBER_MAX}`));
const RateWindow = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(86_400));
const NullableCount = v.nullable(Count);

export const CapsPatchSchema = v.strictObject(
  Object.fromEntries(CAP_NAMES.map((name) => [name, v.optional(NullableCount)])) as Record<
    (typeof CAP_NAMES)[number],
    v.OptionalSchema<typeof NullableCount, undefined>
  >,
);

/** `PATCH /_emulator/workspaces/{id}` (partial). */
export const WorkspaceSettingsPatchSchema = named(
  'WorkspacePatch',
  v.strictObject({
    name: v.optional(Name),
    plan: v.optional(Plan),
    rateLimit: v.optional(
      v.strictObject({
        limit: v.optional(RateLimit),
        windowSeconds: v.optional(RateWindow),
      }),
    ),
    dailyActivityCap: v.optional(NullableCount),
    credits: v.optional(Count),
    caps: v.optional(CapsPatchSchema),
  }),
);

export type WorkspaceSettingsPatch = v.InferOutput<typeof WorkspaceSettingsPatchSchema>;

/** `POST /_emulator/workspaces`. */
export const WorkspaceCreateSchema = named(
  'WorkspaceCreate',
  v.optional(
    v.strictObject({
      name: v.optional(Name),
      scopes: v.optional(v.pipe(v.array(ScopeSchema), v.minLength(1, 'a key needs at least one scope'))),
      plan: v.optional(Plan),
      credits: v.optional(Count),
    }),
    {},
  ),
);

const CapsRecord = v.object(Object.fromEntries(CAP_NAMES.map((n) => [n, NullableCount])) as Record<(typeof CAP_NAMES)[number], typeof NullableCount>);

export const WorkspaceRecordSchema = named(
  'Workspace',
  v.object({
    id: v.string(),
    name: v.string(),
    plan: v.string(),
    rateLimit: v.object({ limit: v.number(), windowSeconds: v.number() }),
    dailyActivityCap: NullableCount,
    credits: v.number(),
    caps: CapsRecord,
    createdAt: v.string(),
    updatedAt: v.string(),
  }),
);

/** `workspaces.caps` as the service writes it: every cap named, each a count or null. */
export const StoredCapsSchema = v.strictObject(
  Object.fromEntries(CAP_NAMES.map((n) => [n, NullableCount])) as Record<(typeof CAP_NAMES)[number], typeof NullableCount>,
);

/** The scalar settings of a `workspaces` row, with the bounds the control plane sets them within. */
export const StoredWorkspaceFields = {
  // What older versions wrote too: the one-line rule (D-1182) is for what comes in now.
  name: clientText({ min: 1, max: 80 }),
  plan: clientText({ min: 1, max: 40 }),
  rateLimit: RateLimit,
  rateWindowSeconds: RateWindow,
  count: Count,
};
