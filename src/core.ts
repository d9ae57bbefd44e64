import type { Kysely } from 'kysely';
import type { Database, Db } from './db/schema/index.js';
import type { JobQueue } from './jobs/queue.js';
import type { CapName } from './plans/plans.js';
import type { Clock } from './platform/clock.js';
import type { IdGenerator } from './platform/ids.js';
import type { Cursors } from './platform/pagination.js';
import type { Settings } from './platform/settings.js';

/**
 * Refuses with `402 svc.billing.limit_reached` when adding `adding` items (default 1)
 * would pass the workspace's plan cap. Call inside the transaction that inserts, before
 * the insert: it locks the workspace's row, then counts with `count` (D-1140). The
 * workspaces part implements it.
 */
export type CapacityCheck = (trx: Db, workspaceId: string, cap: CapName, count: () => Promise<number>, adding?: number) => Promise<void>;

/** What every part's service may use; `createService` builds it once. */
export interface CoreDeps {
  db: Kysely<Database>;
  clock: Clock;
  ids: IdGenerator;
  settings: Settings;
  cursors: Cursors;
  jobs: JobQueue;
  assertCapacity: CapacityCheck;
}
