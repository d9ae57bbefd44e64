import type { Db } from '../db/schema/index.js';
import type { CapName } from '../plans/plans.js';

/** Counts one countable item of a workspace (`count(workspaceId, db?)` of its part). */
export type UsageCounter = (workspaceId: string, db?: Db) => Promise<number>;

/** One counter per plan cap. */
export type UsageCounters = Record<CapName, UsageCounter>;

/**
 * The counters no part of this API lends. Custom domains are managed in the console
 * and have not shipped on `/v1`, so a workspace of the emulator has none; and it has
 * exactly one member, its owner, who holds one seat.
 */
export function coreCounters(): Pick<UsageCounters, 'customDomains' | 'seats'> {
  return {
    customDomains: async () => 0,
    seats: async () => 1,
  };
}
