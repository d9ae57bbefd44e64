import type { Kysely } from 'kysely';
import type { Database } from '../db/schema/index.js';
import { prepareQuery, type PreparedQuery } from '../db/prepared.js';
import type { WindowCounters } from './counters.js';
import { iso } from './time.js';

// Ended windows are swept now and then, not on every hit.
const SWEEP_EVERY = 1000;

/**
 * Counters in the store, exact across processes: one row per name and window, counted
 * by one atomic `INSERT ... ON CONFLICT DO UPDATE ... RETURNING` (decisions, D-202).
 * `namespace` keeps the names of two users of the table apart.
 */
export class SqlWindowCounters implements WindowCounters {
  readonly #hit: PreparedQuery<{ name: string; start: string; end: string }, { count: number }>;
  #hits = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly namespace: string,
    private readonly log: (message: string, error?: unknown) => void,
  ) {
    this.#hit = prepareQuery(db, (p) =>
      db
        .insertInto('window_counters')
        .values({ name: p('name'), window_start: p('start'), count: 1, expires_at: p('end') })
        .onConflict((oc) => oc.columns(['name', 'window_start']).doUpdateSet((eb) => ({ count: eb('window_counters.count', '+', 1) })))
        .returning('count'),
    );
  }

  async hit(name: string, windowStart: number, windowEnd: number): Promise<number> {
    const start = iso(windowStart);
    const [row] = await this.#hit.execute({ name: `${this.namespace}:${name}`, start, end: iso(windowEnd) });
    if (++this.#hits % SWEEP_EVERY === 0) {
      this.db.deleteFrom('window_counters').where('expires_at', '<=', start).execute().catch((error: unknown) => this.log('could not sweep ended counter windows', error));
    }
    return Number(row!.count);
  }

  async clear(): Promise<void> {
    await this.db.deleteFrom('window_counters').where('name', 'like', `${this.namespace}:%`).execute();
  }
}
