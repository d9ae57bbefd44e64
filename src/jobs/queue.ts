import { clearInterval, setInterval, setTimeout } from 'node:timers';
import PQueue from 'p-queue';
import type { Kysely } from 'kysely';
import { prepareQuery, type PreparedQuery } from '../db/prepared.js';
import type { JobTable } from '../db/schema/core.js';
import type { Database, Db } from '../db/schema/index.js';
import type { Clock } from '../platform/clock.js';
import type { IdGenerator } from '../platform/ids.js';
import { StoredValueError } from '../platform/stored.js';
import { iso } from '../platform/time.js';
import { LocalClaims, type JobClaims } from './claims.js';

export interface Job<P = unknown> {
  id: string;
  workspaceId: string;
  kind: string;
  payload: P;
  attempts: number;
}

export type JobHandler<P = unknown> = (job: Job<P>) => Promise<void>;

/**
 * Runs several due jobs of one kind at once (D-891). It ends when all of them are done,
 * answering the error of each job that failed, by job id (the others are finished);
 * throwing fails every one of them.
 */
export type BatchHandler<P = unknown> = (jobs: Job<P>[]) => Promise<ReadonlyMap<string, unknown> | undefined>;

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

// How many workspaces the turns remember (D-1118): tests open thousands in one process.
const SERVED_KEPT = 1024;

// How often `drain` looks again while another process runs the last jobs.
const DRAIN_WAIT_MS = 25;

/**
 * The durable job queue. A job is a row first (inserted in the same transaction as the
 * record it works on), then runs in-process under p-queue with bounded concurrency;
 * this process claims only as many as it has free slots. How jobs are claimed is
 * `claims`: alone (jobs found `running` at start were cut off by a stop and run again),
 * or with leases among processes sharing the store (one that died leaves its jobs to
 * the others). Either way every accepted job ends. After committing a transaction that
 * enqueued, call `kick()`.
 */
export class JobQueue {
  readonly #handlers = new Map<string, BatchHandler>();
  /** The most jobs a handler of that kind takes at once (1 unless registered with `registerBatch`). */
  readonly #batches = new Map<string, number>();
  readonly #inFlight = new Set<string>();
  /** Workspaces whose jobs this process claimed, the one served longest ago first (D-1118). */
  readonly #served = new Map<string, true>();
  /** Slots of the concurrency in use: a batch takes one. */
  #slots = 0;
  readonly #pq: PQueue;
  #scanning: Promise<unknown> | undefined;
  #scanFailing = false;
  #rescan = false;
  #ran = 0;
  /** `#ran` when the last drain answered (D-713). */
  #reported = 0;
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
      /** Default: the store is this process's alone (`LocalClaims`). */
      claims?: JobClaims | undefined;
      /** How often to look for due jobs when the clock follows real time (ms). Default 1,000. */
      pollMs?: number | undefined;
      /**
       * Whether an error says the store is out of reach for now: a job that met one is
       * left to run again rather than marked failed. Default: never.
       */
      transient?: ((error: unknown) => boolean) | undefined;
      /**
       * Brings the process up to date before it looks for due jobs, as a request is (the
       * shared store's coherence: the emulated clock another process moved, faults,
       * caches): jobs come due and run without a request before them. Default: nothing.
       */
      sync?: (() => void | Promise<void>) | undefined;
    },
  ) {
    this.#pq = new PQueue({ concurrency: deps.concurrency });
    this.#claims = deps.claims ?? new LocalClaims(deps.db);
    // Every accepted upload, text or claim inserts one: compiled once, not per request.
    this.#insert = prepareQuery(deps.db, (p) =>
      deps.db
        .insertInto('jobs')
        .values({
          id: p('id'),
          workspace_id: p('workspace_id'),
          kind: p('kind'),
          payload: p('payload'),
          status: 'queued',
          run_at: p('run_at'),
          attempts: 0,
          last_error: null,
          created_at: p('created_at'),
          updated_at: p('updated_at'),
        })
        .onConflict((oc) => oc.column('id').doNothing()),
    );
  }

  readonly #claims: JobClaims;
  readonly #insert: PreparedQuery<Omit<JobTable, 'status' | 'attempts' | 'last_error'>, unknown>;

  register<P>(kind: string, handler: JobHandler<P>): void {
    this.#handlers.set(kind, async (jobs) => {
      for (const job of jobs) await (handler as JobHandler)(job);
      return undefined;
    });
    this.#batches.set(kind, 1);
  }

  /**
   * Jobs of `kind` are claimed and run up to `max` at once in one slot of the queue's
   * concurrency: one claim and one finish for all of them, and a handler that can share
   * work between them (ingestion writes many sources in one transaction, D-891).
   */
  registerBatch<P>(kind: string, handler: BatchHandler<P>, max: number): void {
    this.#handlers.set(kind, handler as BatchHandler);
    this.#batches.set(kind, Math.max(1, Math.floor(max)));
  }

  /** The kinds of job handlers registered (what a job row's `kind` may be). */
  kinds(): string[] {
    return [...this.#handlers.keys()];
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
    const at = iso(now);
    await this.#insert.execute(
      {
        id,
        workspace_id: job.workspaceId,
        kind: job.kind,
        payload: JSON.stringify(job.payload),
        run_at: job.runAt === undefined ? at : iso(job.runAt),
        created_at: at,
        updated_at: at,
      },
      db,
    );
    return id;
  }

  /** Starts taking jobs: resumes what a stop cut off and follows the clock. */
  async start(): Promise<void> {
    await this.#claims.recover();
    this.#running = true;
    const moves = this.deps.clockMoves;
    this.#unsubscribe = moves?.onChange(() => this.kick());
    // A clock that follows real time makes scheduled jobs come due by itself; other
    // processes leave jobs behind whatever the clock does.
    if (!moves?.frozen || this.#claims.poll) this.#timer = setInterval(() => this.kick(), this.deps.pollMs ?? 1000).unref();
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

  /**
   * Runs `fn` while no job runs in any process sharing the store and none is taken
   * (call `stop` first for this process's own); a state import runs so.
   */
  whileQuiet<T>(fn: () => Promise<T>): Promise<T> {
    return this.#claims.quiet(fn);
  }

  /** Looks for due jobs soon; cheap to call often. */
  kick(): void {
    if (!this.#running) return;
    if (this.#scanning) {
      this.#rescan = true;
      return;
    }
    this.#scanning = this.#scan()
      .then(() => (this.#scanFailing = false))
      .catch((error) => {
        // One line per outage of the store, not one per second.
        if (!this.#scanFailing) this.deps.log('job scan failed', error);
        this.#scanFailing = true;
      })
      .finally(() => {
        this.#scanning = undefined;
        if (this.#rescan) {
          this.#rescan = false;
          this.kick();
        }
      });
  }

  /**
   * Resolves once no due job is queued or running (in any process sharing the store);
   * answers how many jobs this process finished since the last drain answered, also those
   * the background ran before this call (D-713): the same requests get the same answer
   * whether a job was still queued when the drain came or had just finished.
   */
  async drain(): Promise<number> {
    for (;;) {
      this.kick();
      await this.#scanning;
      await this.#pq.onIdle();
      if (!this.#running) break;
      // A scan that started during the wait above (a job that ended kicks one) may hold
      // jobs it claimed but has not handed to the queue yet: they count once it ends.
      while (this.#scanning) await this.#scanning;
      if (this.#slots > 0) continue;
      if (!(await this.#claims.pending(iso(this.deps.clock.now())))) break;
      // Queued but not claimable yet, or running elsewhere: look again shortly.
      await new Promise((resolve) => setTimeout(resolve, DRAIN_WAIT_MS));
    }
    const ran = this.#ran - this.#reported;
    this.#reported = this.#ran;
    return ran;
  }

  async #scan(): Promise<void> {
    const free = this.deps.concurrency - this.#slots;
    if (!this.#running || free <= 0) return;
    await this.deps.sync?.();
    const now = iso(this.deps.clock.now());
    const claimed = await this.#claims.claim(now, free, this.#inFlight, [...this.#served.keys()]);
    for (const row of claimed) this.#taken(row);
    for (const row of claimed) {
      const batch = [row];
      // A batch kind fills its slot with more jobs of its kind, claimed at once.
      const max = this.#batches.get(row.kind) ?? 1;
      if (max > 1 && this.#running) {
        for (const more of await this.#claims.claim(now, max - 1, this.#inFlight, [...this.#served.keys()], row.kind)) {
          this.#taken(more);
          batch.push(more);
        }
      }
      const jobs = batch.map((r) => ({
        job: { id: r.id, workspaceId: r.workspace_id, kind: r.kind, payload: undefined, attempts: r.attempts } as Job,
        payload: r.payload,
      }));
      this.#slots += 1;
      void this.#pq.add(() => this.#run(row.kind, jobs));
    }
  }

  /** A claimed job: held, and its workspace served last. */
  #taken(row: JobTable): void {
    this.#inFlight.add(row.id);
    this.#served.delete(row.workspace_id);
    this.#served.set(row.workspace_id, true);
    // A bound on the memory: a workspace forgotten goes first at its next job, as a new one.
    if (this.#served.size > SERVED_KEPT) this.#served.delete(this.#served.keys().next().value!);
  }

  async #run(kind: string, batch: { job: Job; payload: string }[]): Promise<void> {
    const ids = batch.map(({ job }) => job.id);
    const failures = new Map<string, unknown>();
    try {
      const jobs: Job[] = [];
      for (const { job, payload } of batch) {
        // A payload this service did not write fails its job, naming the row (D-722).
        try {
          job.payload = JSON.parse(payload);
          jobs.push(job);
        } catch {
          failures.set(job.id, new StoredValueError({ table: 'jobs', row: job.id, column: 'payload' }, 'not JSON'));
        }
      }
      if (jobs.length > 0) {
        try {
          const handler = this.#handlers.get(kind);
          if (!handler) throw new Error(`no handler for job kind ${kind}`);
          const failed = (await handler(jobs)) ?? new Map<string, unknown>();
          for (const [id, error] of failed) failures.set(id, error);
          // Finished only once the handler's work is committed: a crash before this runs the jobs again.
          await this.#claims.finish(jobs.map((j) => j.id).filter((id) => !failures.has(id)));
        } catch (error) {
          for (const job of jobs) failures.set(job.id, error);
        }
      }
      for (const [id, error] of failures) await this.#failed(kind, id, error);
    } finally {
      for (const id of ids) this.#inFlight.delete(id);
      this.#slots -= 1;
      this.#ran += batch.length;
      this.kick();
    }
  }

  async #failed(kind: string, id: string, error: unknown): Promise<void> {
    // The job stays `running` under this process's lease: claimed again once the store is back.
    if (this.deps.transient?.(error)) return;
    this.deps.log(`job ${kind} ${id} failed`, error);
    await this.#claims.fail(id, error instanceof Error ? error.message : String(error), iso(this.deps.clock.now())).catch(() => {});
  }
}
