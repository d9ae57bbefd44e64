import type { Kysely } from 'kysely';
import type { Database } from '../db/schema/index.js';
import { prepareQuery, type PreparedQuery } from '../db/prepared.js';
import { Coalescer } from './coalesce.js';
import type { WindowCounters } from './counters.js';
import { iso } from './time.js';

interface Batch {
  name: string;
  start: string;
  end: string;
}

// Ended windows are swept now and then, not on every hit.
const SWEEP_EVERY = 1000;

/**
 * Counters in the store, exact across processes: one row per name and window, counted
 * by one atomic `INSERT ... ON CONFLICT DO UPDATE ... RETURNING` (decisions, D-202).
 * `namespace` keeps the names of two users of the table apart.
 */
export class SqlWindowCounters implements WindowCounters {
  readonly #hit: PreparedQuery<{ name: string; start: string; end: string; n: number }, { count: number }>;
  /** Hits of one window counted together while its row is being written. */
  readonly #batches = new Coalescer<Batch, number>((batch, n) => this.#write(batch, n));
  #hits = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly namespace: string,
    private readonly log: (message: string, error?: unknown) => void,
  ) {
    this.#hit = prepareQuery(db, (p) =>
      db
        .insertInto('window_counters')
        .values({ name: p('name'), window_start: p('start'), count: p('n'), expires_at: p('end') })
        .onConflict((oc) => oc.columns(['name', 'window_start']).doUpdateSet((eb) => ({ count: eb('window_counters.count', '+', eb.ref('excluded.count')) })))
        .returning('count'),
    );
  }

  /**
   * Hits of one window that arrive while its row is being written are counted together
   * by the next write (`count + n`), each answered its own place in the order they came:
   * the counts are what one write per hit would give, with one statement for many.
   */
  hit(name: string, windowStart: number, windowEnd: number): Promise<number> {
    return this.#batches.add(`${this.namespace}:${name}\n${windowStart}`, () => ({
      name: `${this.namespace}:${name}`,
      start: iso(windowStart),
      end: iso(windowEnd),
    }));
  }

  async #write(batch: Batch, n: number): Promise<(i: number) => number> {
    const [row] = await this.#hit.execute({ name: batch.name, start: batch.start, end: batch.end, n });
    const last = Number(row!.count);
    this.#hits += n;
    if (this.#hits >= SWEEP_EVERY) {
      this.#hits = 0;
      this.db
        .deleteFrom('window_counters')
        .where('expires_at', '<=', batch.start)
        .execute()
        .catch((error: unknown) => this.log('could not sweep ended counter windows', error));
    }
    return (i) => last - n + 1 + i;
  }

  async clear(): Promise<void> {
    await this.db.deleteFrom('window_counters').where('name', 'like', `${this.namespace}:%`).execute();
  }
}
