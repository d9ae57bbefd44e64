import PQueue from 'p-queue';
import type { Kysely } from 'kysely';
import type { Database, Db } from '../db/schema/index.js';
import type { Clock } from '../platform/clock.js';
import type { IdGenerator } from '../platform/ids.js';
import { iso } from '../platform/time.js';

export interface Job<P = unknown> {
  id: string;
  workspaceId: string;
  kind: string;
  payload: P;
  attempts: number;
}

export type JobHandler<P = any> = (job: Job<P>) => Promise<void>;

/**
 * A clock that can be moved (the emulated clock): the queue runs what came due after
 * each move. A clock without this follows real time, and the queue looks every second.
 */
export interface ClockMoves {
  /** Stands still until moved: no need to look for due jobs on a timer. */
  readonly frozen: boolean;
  /** Runs `listener` after each move; answers how to stop. */
  onChange(listener: () => void): () => void;
}

const SCAN_BATCH = 100;

/**
 * The durable job queue. A job is a row first (inserted in the same transaction as the
 * record it works on), then runs in-process under p-queue with bounded concurrency.
 * Jobs found `running` at start were cut off by a stop and run again, so every
 * accepted job ends. After committing a transaction that enqueued, call `kick()`.
 */
export class JobQueue {
  readonly #handlers = new Map<string, JobHandler>();
  readonly #inFlight = new Set<string>();
  readonly #pq: PQueue;
  #scanning: Promise<void> | undefined;
  #rescan = false;
  #ran = 0;
  #running = false;
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;

  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      clock: Clock;
      ids: IdGenerator;
      concurrency: number;
      log: (message: string, error?: unknown) => void;
      clockMoves?: ClockMoves | undefined;
    },
  ) {
    this.#pq = new PQueue({ concurrency: deps.concurrency });
  }

  register<P>(kind: string, handler: JobHandler<P>): void {
    this.#handlers.set(kind, handler as JobHandler);
  }

  /**
   * Inserts a job row; it runs once `runAt` (default now) has come on the emulated
   * clock. A caller-chosen `id` makes scheduling idempotent (an existing job with that
   * id is kept) and keeps background work from drawing ids, so a seeded emulator's
   * later ids never depend on job timing.
   */
  async enqueue(db: Db, job: { id?: string; workspaceId: string; kind: string; payload: unknown; runAt?: number }): Promise<string> {
    const now = this.deps.clock.now();
    const id = job.id ?? this.deps.ids.next('job');
    await db
      .insertInto('jobs')
      .values({
        id,
        workspace_id: job.workspaceId,
        kind: job.kind,
        payload: JSON.stringify(job.payload),
        status: 'queued',
        run_at: iso(job.runAt ?? now),
        attempts: 0,
        last_error: null,
        created_at: iso(now),
        updated_at: iso(now),
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    return id;
  }

  /** Starts taking jobs: resumes what a stop cut off and follows the clock. */
  async start(): Promise<void> {
    await this.deps.db.updateTable('jobs').set({ status: 'queued' }).where('status', '=', 'running').execute();
    this.#running = true;
    const moves = this.deps.clockMoves;
    this.#unsubscribe = moves?.onChange(() => this.kick());
    // A clock that follows real time makes scheduled jobs come due by itself.
    if (!moves?.frozen) this.#timer = setInterval(() => this.kick(), 1000).unref();
    this.kick();
  }

  /** Stops taking jobs and waits for the running ones to finish. */
  async stop(): Promise<void> {
    this.#running = false;
    if (this.#timer) clearInterval(this.#timer);
    this.#unsubscribe?.();
    await this.#scanning;
    await this.#pq.onIdle();
  }

  /** Looks for due jobs soon; cheap to call often. */
  kick(): void {
    if (!this.#running) return;
    if (this.#scanning) {
      this.#rescan = true;
      return;
    }
    this.#scanning = this.#scan()
      .catch((error) => this.deps.log('job scan failed', error))
      .finally(() => {
        this.#scanning = undefined;
        if (this.#rescan) {
          this.#rescan = false;
          this.kick();
        }
      });
  }

  /** Resolves once no due job is queued or running; answers how many jobs ran meanwhile. */
  async drain(): Promise<number> {
    const before = this.#ran;
    for (;;) {
      this.kick();
      await this.#scanning;
      await this.#pq.onIdle();
      if (this.#inFlight.size === 0 && !(await this.#hasDueJobs())) break;
      if (!this.#running) break;
    }
    return this.#ran - before;
  }

  async #hasDueJobs(): Promise<boolean> {
    const row = await this.deps.db
      .selectFrom('jobs')
      .select('id')
      .where('status', '=', 'queued')
      .where('run_at', '<=', iso(this.deps.clock.now()))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async #scan(): Promise<void> {
    const due = await this.deps.db
      .selectFrom('jobs')
      .selectAll()
      .where('status', '=', 'queued')
      .where('run_at', '<=', iso(this.deps.clock.now()))
      .orderBy('run_at')
      .orderBy('id')
      .limit(SCAN_BATCH)
      .execute();
    for (const row of due) {
      if (!this.#running || this.#inFlight.has(row.id)) continue;
      const claimed = await this.deps.db
        .updateTable('jobs')
        .set({ status: 'running', attempts: row.attempts + 1, updated_at: iso(this.deps.clock.now()) })
        .where('id', '=', row.id)
        .where('status', '=', 'queued')
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) continue;
      this.#inFlight.add(row.id);
      const job: Job = { id: row.id, workspaceId: row.workspace_id, kind: row.kind, payload: JSON.parse(row.payload), attempts: row.attempts + 1 };
      void this.#pq.add(() => this.#run(job));
    }
    if (due.length === SCAN_BATCH) this.#rescan = true;
  }

  async #run(job: Job): Promise<void> {
    try {
      const handler = this.#handlers.get(job.kind);
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      await handler(job);
      await this.deps.db.deleteFrom('jobs').where('id', '=', job.id).execute();
    } catch (error) {
      this.deps.log(`job ${job.kind} ${job.id} failed`, error);
      await this.deps.db
        .updateTable('jobs')
        .set({ status: 'failed', last_error: error instanceof Error ? error.message : String(error), updated_at: iso(this.deps.clock.now()) })
        .where('id', '=', job.id)
        .execute()
        .catch(() => {});
    } finally {
      this.#inFlight.delete(job.id);
      this.#ran += 1;
      this.kick();
    }
  }
}
