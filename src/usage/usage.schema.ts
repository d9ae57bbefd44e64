import * as v from 'valibot';
import { named } from '../platform/named-schema.js';
import { CAP_NAMES, type CapName } from '../plans/plans.js';

const Count = v.number();
const perCap = <S extends v.GenericSchema>(schema: S) => v.object(Object.fromEntries(CAP_NAMES.map((name) => [name, schema])) as Record<CapName, S>);

/** `GET /v1/usage` (CONTRACT, Usage). */
export const UsageSchema = named(
  'Usage',
  v.object({
    messages: v.object({ used: Count, limit: Count, remaining: Count }),
    counts: perCap(Count),
    caps: perCap(v.nullable(Count)),
    activity: v.object({ today: Count, cap: v.nullable(Count) }),
  }),
);

export type Usage = v.InferOutput<typeof UsageSchema>;
