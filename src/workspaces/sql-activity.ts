import type { Kysely } from 'kysely';
import type { Database } from '../db/schema/index.js';
import type { Clock } from '../platform/clock.js';
import { Coalescer } from '../platform/coalesce.js';
import { utcDay } from '../platform/time.js';
import type { ActivityStore } from './activity.js';

/**
 * Daily activity counted in the store, for processes sharing it: one atomic upsert per
 * request under a cap (`ON CONFLICT DO UPDATE SET count = count + 1 RETURNING count`),
 * each request seeing its own count, so a cap of N allows N requests across every
 * process (D-202); the refused ones count too (D-1195).
 */
export class SqlActivity implements ActivityStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** Uncapped counts of one workspace and day, written together while a write is under way. */
  readonly #uncappedBatches = new Coalescer<{ workspaceId: string; day: string }, boolean>(async (batch, n) => {
    await this.db
      .insertInto('activity')
      .values({ workspace_id: batch.workspaceId, day: batch.day, count: n })
      .onConflict((oc) => oc.columns(['workspace_id', 'day']).doUpdateSet((eb) => ({ count: eb('activity.count', '+', n) })))
      .execute();
    return () => true;
  });

  async record(workspaceId: string, cap: number | null): Promise<boolean> {
    if (cap === null) return this.#uncapped(workspaceId);
    const row = await this.db
      .insertInto('activity')
      .values({ workspace_id: workspaceId, day: utcDay(this.clock.now()), count: 1 })
      .onConflict((oc) => oc.columns(['workspace_id', 'day']).doUpdateSet((eb) => ({ count: eb('activity.count', '+', 1) })))
      .returning('count')
      .executeTakeFirstOrThrow();
    return Number(row.count) <= cap;
  }

  /**
   * Without a cap nothing is refused: counts that arrive while one is being written go
   * together in the next write (`count + n`), one statement for many requests.
   */
  #uncapped(workspaceId: string): Promise<boolean> {
    const day = utcDay(this.clock.now());
    return this.#uncappedBatches.add(`${workspaceId}\n${day}`, () => ({ workspaceId, day }));
  }

  async today(workspaceId: string): Promise<number> {
    const row = await this.db
      .selectFrom('activity')
      .select('count')
      .where('workspace_id', '=', workspaceId)
      .where('day', '=', utcDay(this.clock.now()))
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  async flush(): Promise<void> {}

  forget(): void {}
}
