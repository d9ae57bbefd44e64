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

  async record(workspaceId: string, cap: number | null): Promise<boolean> {
    if (cap !== null && cap <= 0) return false;
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
