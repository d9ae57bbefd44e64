import type { Kysely } from 'kysely';
import type { Database } from '../db/schema/index.js';
import type { Clock } from '../platform/clock.js';
import { utcDay } from '../platform/time.js';
import type { ActivityStore } from './activity.js';

/**
 * Daily activity counted in the store, for processes sharing it: one atomic upsert per
 * request that counts only under the cap (`ON CONFLICT DO UPDATE ... WHERE count <
 * cap RETURNING`), so a cap of N allows N requests across every process (D-202).
 */
export class SqlActivity implements ActivityStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** Counts waiting for the uncapped write of their workspace and day under way to end. */
  readonly #waiting = new Map<string, { workspaceId: string; day: string; waiters: { resolve: (ok: boolean) => void; reject: (error: unknown) => void }[] }>();
  readonly #writing = new Set<string>();

  async record(workspaceId: string, cap: number | null): Promise<boolean> {
    if (cap !== null && cap <= 0) return false;
    if (cap === null) return this.#uncapped(workspaceId);
    const row = await this.db
      .insertInto('activity')
      .values({ workspace_id: workspaceId, day: utcDay(this.clock.now()), count: 1 })
      .onConflict((oc) => {
        const update = oc.columns(['workspace_id', 'day']).doUpdateSet((eb) => ({ count: eb('activity.count', '+', 1) }));
        return cap === null ? update : update.where('activity.count', '<', cap);
      })
      .returning('count')
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Without a cap nothing is refused: counts that arrive while one is being written go
   * together in the next write (`count + n`), one statement for many requests.
   */
  #uncapped(workspaceId: string): Promise<boolean> {
    const day = utcDay(this.clock.now());
    const key = `${workspaceId}\n${day}`;
    return new Promise((resolve, reject) => {
      let batch = this.#waiting.get(key);
      if (!batch) {
        batch = { workspaceId, day, waiters: [] };
        this.#waiting.set(key, batch);
      }
      batch.waiters.push({ resolve, reject });
      if (!this.#writing.has(key)) void this.#write(key);
    });
  }

  async #write(key: string): Promise<void> {
    this.#writing.add(key);
    try {
      for (let batch = this.#waiting.get(key); batch; batch = this.#waiting.get(key)) {
        this.#waiting.delete(key);
        const n = batch.waiters.length;
        try {
          await this.db
            .insertInto('activity')
            .values({ workspace_id: batch.workspaceId, day: batch.day, count: n })
            .onConflict((oc) => oc.columns(['workspace_id', 'day']).doUpdateSet((eb) => ({ count: eb('activity.count', '+', n) })))
            .execute();
          for (const w of batch.waiters) w.resolve(true);
        } catch (error) {
          for (const w of batch.waiters) w.reject(error);
        }
      }
    } finally {
      this.#writing.delete(key);
    }
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
