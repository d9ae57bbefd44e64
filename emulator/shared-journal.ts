import type { Context } from 'hono';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../src/db/schema/index.js';
import type { Clock } from '../src/platform/clock.js';
import type { AppEnv } from '../src/platform/context.js';
import { iso } from '../src/platform/time.js';
import { entryOf, type JournalEntry, type JournalStore } from './journal.js';

type RawEntry = Omit<JournalEntry, 'at'> & { at: number };

/**
 * A site request's host rides in the row's `path` column, before the path: the table has
 * no column of its own for it (D-1197). A request's path always starts with `/` and a
 * host holds none, so `cafe.localhost/menu` reads back unambiguously, and a row without a
 * host (every row written before) is its path as it was.
 */
function storedPath(entry: RawEntry): string {
  return entry.host === null ? entry.path : `${entry.host}${entry.path}`;
}

function readPath(stored: string): { host: string | null; path: string } {
  if (stored.startsWith('/')) return { host: null, path: stored };
  const slash = stored.indexOf('/');
  return slash < 0 ? { host: null, path: stored } : { host: stored.slice(0, slash), path: stored.slice(slash) };
}

// Rows past the capacity are dropped now and then, not after every request.
const PRUNE_EVERY = 100;

/**
 * The request journal in the store, for processes sharing it (decisions, D-207): every
 * answer is a row written before it leaves, so `GET /_emulator/requests` on any
 * process lists the requests all of them answered, newest first.
 */
export class SharedJournal implements JournalStore {
  #written = 0;
  #writing = false;
  readonly #queue: { entry: RawEntry; resolve: () => void; reject: (error: unknown) => void }[] = [];

  constructor(
    private readonly db: Kysely<Database>,
    readonly capacity = 1000,
  ) {}

  /**
   * Writes one answer's row; resolves once it is in the store. Rows that arrive while a
   * write is under way go together in the next one (one statement for many answers
   * under load), in the order they came.
   */
  add(entry: RawEntry): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ entry, resolve, reject });
      if (!this.#writing) void this.#write();
    });
  }

  async #write(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0);
        try {
          await this.db
            .insertInto('journal')
            .values(
              batch.map(({ entry }) => ({
                at: iso(entry.at),
                method: entry.method,
                path: storedPath(entry),
                status: entry.status,
                code: entry.code,
                key_prefix: entry.keyPrefix,
                workspace_id: entry.workspaceId,
                request_id: entry.requestId,
              })),
            )
            .execute();
        } catch (error) {
          for (const { reject } of batch) reject(error);
          continue;
        }
        for (const { resolve } of batch) resolve();
        this.#written += batch.length;
        if (this.#written >= PRUNE_EVERY) {
          this.#written = 0;
          await sql`DELETE FROM journal WHERE seq <= (SELECT max(seq) FROM journal) - ${this.capacity}`.execute(this.db).catch(() => {});
        }
      }
    } finally {
      this.#writing = false;
    }
  }

  async recent(limit: number): Promise<JournalEntry[]> {
    const rows = await this.db.selectFrom('journal').selectAll().orderBy('seq', 'desc').limit(Math.min(limit, this.capacity)).execute();
    return rows.map((r) => ({
      at: r.at,
      method: r.method,
      ...readPath(r.path),
      status: Number(r.status),
      code: r.code,
      keyPrefix: r.key_prefix,
      workspaceId: r.workspace_id,
      requestId: r.request_id,
    }));
  }

  async clear(): Promise<void> {
    await this.db.deleteFrom('journal').execute();
  }

  recorder(clock: Clock, siteDomain?: string): (c: Context<AppEnv>) => void | Promise<void> {
    // The journal is a record of answers, not part of them: an answer whose row cannot
    // be written (the database went away) still goes out, unrecorded.
    const add = (e: RawEntry | undefined) => e && this.add(e).catch(() => {});
    return (c) => {
      const entry = entryOf(c, clock, siteDomain);
      return entry instanceof Promise ? entry.then(add) : add(entry);
    };
  }
}
