import { clearTimeout, setTimeout } from 'node:timers';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema/index.js';
import { prepareQuery, type PreparedQuery } from '../db/prepared.js';
import type { Clock } from '../platform/clock.js';
import { DAY, utcDay } from '../platform/time.js';

interface Counter {
  workspaceId: string;
  day: string;
  count: number;
  dirty: boolean;
}

const FLUSH_DELAY_MS = 200;

/** Where a workspace's daily activity is counted: memory (`ActivityCounter`) or the store (`SqlActivity`). */
export interface ActivityStore {
  /**
   * Counts one activity, and answers whether it is within `cap` (the day's count, this one
   * included, at most `cap`). A request refused at the cap counts too (CONTRACT: every
   * authenticated `/v1` request counts; D-1195).
   */
  record(workspaceId: string, cap: number | null): boolean | Promise<boolean>;
  today(workspaceId: string): Promise<number>;
  /** Writes what memory holds to the store. */
  flush(): Promise<void>;
  /** Drops what memory holds (the store was replaced or the workspace deleted). */
  forget(workspaceId?: string): void;
}

/**
 * Daily activity per workspace. Every authenticated `/v1` request counts, so the
 * counters live in memory (loaded from the store on first use of a day) and are
 * written back in batches: on a short timer, before any export and at stop. A crash
 * loses at most the last batch of counts, never an acknowledged write (decisions, D-011).
 */
export class ActivityCounter implements ActivityStore {
  readonly #counters = new Map<string, Counter>();
  readonly #loading = new Map<string, Promise<Counter>>();
  readonly #upsert: PreparedQuery<{ ws: string; day: string; count: number }, unknown>;
  #timer: NodeJS.Timeout | undefined;
  #epoch = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {
    this.#upsert = prepareQuery(db, (p) =>
      db
        .insertInto('activity')
        .values({ workspace_id: p('ws'), day: p('day'), count: p('count') })
        .onConflict((oc) => oc.columns(['workspace_id', 'day']).doUpdateSet((eb) => ({ count: eb.ref('excluded.count') }))),
    );
  }

  /**
   * Counts one activity; answers whether it is within the cap. Synchronous once the
   * day's counter is loaded: this runs on every request.
   */
  record(workspaceId: string, cap: number | null): boolean | Promise<boolean> {
    const counter = this.#counter(workspaceId);
    return counter instanceof Promise ? counter.then((c) => this.#count(c, cap)) : this.#count(counter, cap);
  }

  #count(counter: Counter, cap: number | null): boolean {
    counter.count += 1;
    counter.dirty = true;
    this.#timer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS).unref();
    return cap === null || counter.count <= cap;
  }

  async today(workspaceId: string): Promise<number> {
    return (await this.#counter(workspaceId)).count;
  }

  /** Writes every changed counter to the store. */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const today = Math.floor(this.clock.now() / DAY);
    for (const [key, c] of this.#counters) {
      if (c.dirty) {
        c.dirty = false;
        await this.#upsert.execute({ ws: c.workspaceId, day: c.day, count: c.count });
      }
      if (Date.parse(`${c.day}T00:00:00.000Z`) / DAY < today) {
        this.#counters.delete(key);
        if (this.#last === c) this.#last = undefined;
      }
    }
  }

  /** Drops what memory holds, unwritten counts included (the store was replaced or the workspace deleted). */
  forget(workspaceId?: string): void {
    this.#epoch += 1;
    this.#last = undefined;
    for (const [key, c] of this.#counters) if (workspaceId === undefined || c.workspaceId === workspaceId) this.#counters.delete(key);
    this.#loading.clear();
  }

  #last: Counter | undefined;
  #dayNumber = -1;
  #dayString = '';

  #today(): string {
    const n = Math.floor(this.clock.now() / DAY);
    if (n !== this.#dayNumber) {
      this.#dayNumber = n;
      this.#dayString = utcDay(n * DAY);
    }
    return this.#dayString;
  }

  #counter(workspaceId: string): Counter | Promise<Counter> {
    const day = this.#today();
    // The last counter used is almost always the one asked for: skip building its key.
    const last = this.#last;
    if (last && last.workspaceId === workspaceId && last.day === day) return last;
    const key = `${workspaceId}|${day}`;
    const known = this.#counters.get(key);
    if (known) {
      this.#last = known;
      return known;
    }
    let loading = this.#loading.get(key);
    if (!loading) {
      const epoch = this.#epoch;
      loading = this.db
        .selectFrom('activity')
        .select('count')
        .where('workspace_id', '=', workspaceId)
        .where('day', '=', day)
        .executeTakeFirst()
        .then((row) => {
          const counter = this.#counters.get(key) ?? { workspaceId, day, count: row?.count ?? 0, dirty: false };
          if (epoch === this.#epoch) this.#counters.set(key, counter);
          return counter;
        })
        .finally(() => this.#loading.delete(key));
      this.#loading.set(key, loading);
    }
    return loading;
  }
}
