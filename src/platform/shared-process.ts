import { clearInterval, setInterval } from 'node:timers';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database, Db } from '../db/schema/index.js';
import { iso } from './time.js';

/**
 * The database server's clock in epoch milliseconds: leases are judged by one clock
 * whatever machines the processes run on. PostgreSQL only (a shared store is one).
 */
export const DB_NOW_MS: RawBuilder<number> = sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/**
 * This process as one of several sharing a store: a row in `instances` whose lease it
 * renews on a timer. While the lease runs, the jobs it claimed and the idempotent
 * requests it started are its own; once it lapses (the process was killed or lost the
 * database) another process takes them over (decisions, D-204).
 */
export class SharedProcess {
  #timer: NodeJS.Timeout | undefined;
  #failing = false;

  constructor(
    private readonly db: Kysely<Database>,
    readonly id: string,
    private readonly options: { leaseMs: number; now: () => number; log: (message: string, error?: unknown) => void },
  ) {}

  /** Registers the process and starts renewing its lease. */
  async start(): Promise<void> {
    await this.#renew();
    this.#timer ??= setInterval(() => void this.#renew().catch((error: unknown) => this.#failed(error)), Math.max(50, this.options.leaseMs / 3)).unref();
  }

  /** Stops renewing and leaves: what it held is free for others at once. */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.db
      .deleteFrom('instances')
      .where('id', '=', this.id)
      .execute()
      .catch(() => {});
  }

  /** Whether the process `id` holds a lease that has not lapsed. */
  async alive(id: string, db: Db = this.db): Promise<boolean> {
    if (id === this.id) return true;
    const row = await db.selectFrom('instances').select('id').where('id', '=', id).where('lease_until', '>', DB_NOW_MS).executeTakeFirst();
    return row !== undefined;
  }

  /** Asks every process to take no new job until `resume` (a state import waits for running ones to end). */
  async pause(): Promise<void> {
    await this.db.updateTable('instances').set({ pausing: 1 }).where('id', '=', this.id).execute();
  }

  async resume(db: Db = this.db): Promise<void> {
    await db.updateTable('instances').set({ pausing: 0 }).where('id', '=', this.id).execute();
  }

  async #renew(): Promise<void> {
    const leaseUntil = sql<number>`${DB_NOW_MS} + ${this.options.leaseMs}`;
    await this.db
      .insertInto('instances')
      .values({ id: this.id, started_at: iso(this.options.now()), lease_until: leaseUntil, pausing: 0 })
      .onConflict((oc) => oc.column('id').doUpdateSet({ lease_until: leaseUntil }))
      .execute();
    if (this.#failing) this.options.log('the database is back: the lease of this process is renewed again');
    this.#failing = false;
  }

  #failed(error: unknown): void {
    // One line per outage, not one per beat.
    if (!this.#failing) this.options.log('could not renew the lease of this process (the database is unreachable?); retrying', error);
    this.#failing = true;
  }
}
