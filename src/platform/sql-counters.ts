import type { Kysely } from 'kysely';
import type { Database } from '../db/schema/index.js';
import { prepareQuery, type PreparedQuery } from '../db/prepared.js';
import type { WindowCounters } from './counters.js';
import { iso } from './time.js';

interface Batch {
  name: string;
  start: string;
  end: string;
  waiters: { resolve: (count: number) => void; reject: (error: unknown) => void }[];
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
  /** Hits waiting for the write of their window under way to end, by name and window. */
  readonly #waiting = new Map<string, Batch>();
  readonly #writing = new Set<string>();
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
    const key = `${this.namespace}:${name}\n${windowStart}`;
    return new Promise((resolve, reject) => {
      let batch = this.#waiting.get(key);
      if (!batch) {
        batch = { name: `${this.namespace}:${name}`, start: iso(windowStart), end: iso(windowEnd), waiters: [] };
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
          const [row] = await this.#hit.execute({ name: batch.name, start: batch.start, end: batch.end, n });
          const last = Number(row!.count);
          batch.waiters.forEach((w, i) => w.resolve(last - n + 1 + i));
        } catch (error) {
          for (const w of batch.waiters) w.reject(error);
        }
        this.#hits += n;
        if (this.#hits >= SWEEP_EVERY) {
          this.#hits = 0;
          this.db.deleteFrom('window_counters').where('expires_at', '<=', batch.start).execute().catch((error: unknown) => this.log('could not sweep ended counter windows', error));
        }
      }
    } finally {
      this.#writing.delete(key);
    }
  }

  async clear(): Promise<void> {
    await this.db.deleteFrom('window_counters').where('name', 'like', `${this.namespace}:%`).execute();
  }
}
