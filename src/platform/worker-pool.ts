import { clearTimeout, setTimeout } from 'node:timers';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import PQueue from 'p-queue';
import type { Piscina } from 'piscina';
import { ServiceError } from './service-error.js';
import { taskTimeLimit } from './task-time-limit.js';
import { BUFFER_LIMIT_EXIT, type TaskEnvelope, type TaskInput, type TaskNames, type TaskOutput, type TaskResult } from './worker-protocol.js';

/** How many threads, for how long idle ones live, and what one task may spend (decisions, D-139 to D-141). */
export interface WorkerPoolOptions {
  /**
   * Threads at most; one of them is kept for interactive tasks when there are two or
   * more. Default: the machine's parallelism plus one, from 2 to 4, so that background
   * work has a thread per core (up to three) beside the one kept (D-892).
   */
  maxThreads: number;
  /** A thread with nothing to do exits after this long (none starts before a task or `warm`). Default 30,000 ms. */
  idleTimeoutMs: number;
  /**
   * How much nicer than the serving thread the threads run (Unix niceness added, 0 to
   * 19): on a busy machine the operating system gives the serving thread the CPU first.
   * Default 10.
   */
  niceIncrement: number;
  /** Wall time one task may run, from the moment a thread takes it. Default 30,000 ms. */
  taskTimeoutMs: number;
  /** V8 heap of a thread (`resourceLimits`): old generation, young generation, stack. Defaults 256, 32 and 4 MB. */
  maxOldGenerationMb: number;
  maxYoungGenerationMb: number;
  stackMb: number;
  /**
   * Binary buffers (ArrayBuffers, typed arrays, Buffers) a thread may hold: they live
   * outside the V8 heap, so `resourceLimits` does not bound them (see `worker-task.ts`).
   * Default 256 MB.
   */
  maxBufferMb: number;
}

export const DEFAULT_WORKER_POOL: WorkerPoolOptions = {
  maxThreads: Math.min(4, Math.max(2, availableParallelism() + 1)),
  idleTimeoutMs: 30_000,
  niceIncrement: 10,
  taskTimeoutMs: 30_000,
  maxOldGenerationMb: 256,
  maxYoungGenerationMb: 32,
  stackMb: 4,
  maxBufferMb: 256,
};

declare const WORKER_MODULE: unique symbol;
/** The file URL of a worker module whose exports are `M` (see `workerModule`). */
export type WorkerModule<M> = string & { readonly [WORKER_MODULE]: M };

/**
 * The worker module `<name>` beside the module whose `import.meta.url` is `from`:
 * `.ts` next to a TypeScript source (tests), `.js` next to built code. The CLI bundle
 * is one file in `dist/`, so the build emits each worker module there under its own
 * name (`emulator/bundle.mjs`): names are bare file names, unique in the package.
 * `M` is the module's type, which `run` checks tasks against:
 * `workerModule<typeof import('./extract.worker.js')>(import.meta.url, 'extract.worker')`
 * (a type only: the module is never loaded on this thread).
 */
export function workerModule<M>(from: string, name: string): WorkerModule<M> {
  if (!/^[a-z0-9-]+\.worker$/.test(name)) throw new Error(`worker module names look like "extract.worker", not ${name}`);
  return new URL(`./${name}${from.endsWith('.ts') ? '.ts' : '.js'}`, from).href as WorkerModule<M>;
}

/** A task stopped by its time limit or its memory limits. */
export class WorkerLimitError extends Error {
  constructor(readonly limit: 'time' | 'memory') {
    super(`the task ran over its ${limit} limit`);
    this.name = 'WorkerLimitError';
  }
}

export interface RunOptions {
  /** Background work (ingestion) never takes the thread kept for interactive tasks. */
  background?: boolean;
  /**
   * Buffers moved to the thread instead of copied (copying 20 MiB costs the request
   * thread tens of milliseconds); they are unusable here afterwards unless the worker
   * function hands them back (`workerTask`'s `handBack`). See `movable`.
   */
  transfer?: ArrayBuffer[];
}

/** The buffer of `bytes` when the view covers all of it (so moving it disturbs no other view), else nothing. */
export function movable(bytes: Uint8Array): ArrayBuffer[] {
  const buffer = bytes.buffer;
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength ? [buffer] : [];
}

// TypeScript worker modules (tests run the sources) need a loader inside the thread:
// Node 20 does not apply `--import` hooks to worker threads, so a plain ES module
// registers tsx there first and then imports the task's module.
const TS_BOOTSTRAP = fileURLToPath(new URL('./ts-worker.mjs', import.meta.url));

/** Threads and their queues, shared by every pool of the process built with the same options (D-1074). */
interface SharedThreads {
  readonly all: PQueue;
  readonly background: PQueue;
  piscina: Promise<Piscina> | undefined;
  /** Tasks given to `run` and not settled yet, waiting or running, of every pool sharing the threads. */
  active: number;
  /** The tasks handed to a thread and not settled yet (settling, never rejecting). */
  readonly running: Set<Promise<void>>;
  /** Pools holding them: a pool holds them from its construction (again from its next task after a `close`) until `close`. */
  holders: number;
  /** Set while no pool holds them: ends them unless a pool takes them first (D-1229). */
  linger: NodeJS.Timeout | undefined;
}

const SHARED = new Map<string, SharedThreads>();

/** The options that make two pools' threads interchangeable, in one spelling. */
function keyOf(options: WorkerPoolOptions): string {
  return JSON.stringify(
    Object.keys(options)
      .sort()
      .map((k) => [k, options[k as keyof WorkerPoolOptions]]),
  );
}

/**
 * One pool of worker threads (piscina) for everything whose cost grows with what a
 * client sends: parts declare their own worker modules and name them per task; the
 * pool knows none of them. Threads start on the first task (or on `warm`, which a
 * server calls once it listens, D-1000) and exit when idle. The pools of one process
 * built with the same options share their threads and queues (D-1074): a second
 * emulator's first document finds the threads the first one started, their modules
 * and the tokenizer's vocabulary loaded, and the process has at most `maxThreads` of
 * them however many emulators it runs. A task runs under a wall-time limit, V8 heap
 * limits and a buffer limit; going over one is a `WorkerLimitError` (the thread is
 * ended on a time limit). Failures a worker function expects come back as the
 * `ServiceError` it threw.
 */
export class WorkerPool {
  readonly #options: WorkerPoolOptions;
  readonly #key: string;
  #held: SharedThreads | undefined;

  constructor(options: Partial<WorkerPoolOptions> = {}) {
    this.#options = { ...DEFAULT_WORKER_POOL, ...options };
    this.#key = keyOf(this.#options);
    // Held from the start (no thread starts before a task): the threads another emulator
    // starts stay for this one until it closes.
    this.#hold();
  }

  get options(): Readonly<WorkerPoolOptions> {
    return this.#options;
  }

  /** Background tasks that run at once at most (the threads less the one kept for interactive tasks). */
  get backgroundThreads(): number {
    return Math.max(1, this.#threadCount() - 1);
  }

  #threadCount(): number {
    return Math.max(1, Math.floor(this.#options.maxThreads));
  }

  /** The threads this pool runs on, held until `close`. */
  #hold(): SharedThreads {
    if (this.#held) return this.#held;
    let shared = SHARED.get(this.#key);
    if (!shared) {
      shared = {
        all: new PQueue({ concurrency: this.#threadCount() }),
        background: new PQueue({ concurrency: this.backgroundThreads }),
        piscina: undefined,
        active: 0,
        running: new Set(),
        holders: 0,
        linger: undefined,
      };
      SHARED.set(this.#key, shared);
    }
    shared.holders += 1;
    clearTimeout(shared.linger);
    shared.linger = undefined;
    this.#held = shared;
    return shared;
  }

  #started = 0;

  /** Tasks this pool handed to a thread so far (diagnostics: a cached answer starts none). */
  get tasksStarted(): number {
    return this.#started;
  }

  /** Threads alive now for this pool's options, whichever pool of the process started them (0 before the first task and after the idle timeout). */
  async threads(): Promise<number> {
    const piscina = SHARED.get(this.#key)?.piscina;
    return piscina ? (await piscina).threads.length : 0;
  }

  /**
   * Runs task `name` of `module` on `input` in a thread; resolves with what it returned.
   * The name, the input and the result are the module's own (D-805).
   */
  run<M, N extends TaskNames<M>>(module: WorkerModule<M>, name: N, input: TaskInput<M, N>, options: RunOptions = {}): Promise<TaskOutput<M, N>> {
    const shared = this.#hold();
    shared.active += 1;
    return this.#submit<TaskOutput<M, N>>(shared, module, name, input, options).finally(() => {
      shared.active -= 1;
    });
  }

  #submit<R>(shared: SharedThreads, module: string, name: string, input: unknown, options: RunOptions): Promise<R> {
    // Tasks wait here, not in piscina's queue, so that the time limit counts running time only.
    const start = () =>
      shared.all.add(() => this.#exec<R>(shared, module, name, input, options.transfer ?? []), { priority: options.background ? 0 : 1 }) as Promise<R>;
    return options.background ? (shared.background.add(start) as Promise<R>) : start();
  }

  /** Whether this pool is held and no task given to `run` by any pool sharing its threads waits or runs. */
  get idle(): boolean {
    return this.#held !== undefined && this.#held.active === 0;
  }

  /**
   * Runs task `name` of `module` on each of `inputs` in turn, on as many background
   * threads at once as the pool has, while the pool has nothing else to do: before each,
   * it looks whether any task given to `run` by any pool sharing the threads waits or
   * runs, and the first time one does, or once this pool is closed, it starts no more.
   * For work worth doing only on threads that would idle otherwise (warming their
   * compiled code, D-1220): the next real task waits at most for the ones already
   * started. A task that fails ends its lane. Resolves with how many ran.
   */
  async whileIdle<M, N extends TaskNames<M>>(module: WorkerModule<M>, name: N, inputs: readonly TaskInput<M, N>[]): Promise<number> {
    const shared = this.#held;
    if (!shared) return 0;
    let next = 0;
    let ran = 0;
    let stopped = false;
    // Once other work came, or the pool closed, every lane stops for good.
    const idle = () => {
      if (this.#held !== shared || !this.idle) stopped = true;
      return !stopped;
    };
    const lane = async () => {
      while (next < inputs.length && idle()) {
        try {
          await this.#submit(shared, module, name, inputs[next++], { background: true });
          ran += 1;
        } catch {
          return;
        }
      }
    };
    await Promise.all(Array.from({ length: this.backgroundThreads }, lane));
    return ran;
  }

  /**
   * Starts the background threads now rather than with the first task: each runs task
   * `name` of `module` once (one that loads what the module's tasks need), so that the
   * first real tasks find them ready. Threads still end when idle. Resolves when all
   * have run it; a thread that fails to is not an error (the next task starts another).
   * A server calls this once it listens; nothing else starts threads early (D-1000).
   */
  async warm<M, N extends TaskNames<M>>(module: WorkerModule<M>, name: N, input: TaskInput<M, N>): Promise<void> {
    // Tasks given at once make piscina start a thread for each (one task per thread).
    const runs = Array.from({ length: this.backgroundThreads }, () => this.run(module, name, input, { background: true }));
    await Promise.allSettled(runs);
  }

  async #exec<R>(shared: SharedThreads, module: string, name: string, input: unknown, transferList: ArrayBuffer[]): Promise<R> {
    shared.piscina ??= this.#create();
    const piscina = await shared.piscina;
    this.#started += 1;
    const limit = taskTimeLimit(this.#options.taskTimeoutMs);
    const { signal } = limit;
    const envelope: TaskEnvelope<unknown> = { input, limits: { maxBufferBytes: this.#options.maxBufferMb * 1024 * 1024 }, started: limit.started };
    const ts = module.endsWith('.ts');
    let result: TaskResult<R>;
    try {
      const task = piscina.run(ts ? { module, name, envelope } : envelope, {
        filename: ts ? TS_BOOTSTRAP : fileURLToPath(module),
        name: ts ? 'run' : name,
        signal,
        transferList,
      });
      const settled = task.then(noop, noop);
      shared.running.add(settled);
      void settled.then(() => shared.running.delete(settled));
      result = await task;
    } catch (error) {
      if (signal.aborted) throw new WorkerLimitError('time');
      if ((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') throw new WorkerLimitError('memory');
      // piscina reports a thread that ended itself by its exit code only.
      if ((error as Error).message === `worker exited with code: ${BUFFER_LIMIT_EXIT}`) throw new WorkerLimitError('memory');
      throw error;
    } finally {
      limit.stop();
    }
    if (result.ok) return result.value;
    if ('limit' in result) throw new WorkerLimitError(result.limit);
    throw new ServiceError(result.error.code, {
      ...(result.error.detail !== undefined && { detail: result.error.detail }),
      ...(result.error.errors && { errors: result.error.errors }),
    });
  }

  async #create(): Promise<Piscina> {
    const { Piscina } = await import('piscina');
    const o = this.#options;
    const pool = new Piscina({
      minThreads: 0,
      maxThreads: Math.max(1, Math.floor(o.maxThreads)),
      idleTimeout: o.idleTimeoutMs,
      concurrentTasksPerWorker: 1,
      // Through @napi-rs/nice, an optional dependency of piscina; without it, no change.
      niceIncrement: Math.max(0, Math.min(19, Math.floor(o.niceIncrement))),
      // The parent's flags (a test runner's, a loader's) are not the threads' business.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: o.maxOldGenerationMb, maxYoungGenerationSizeMb: o.maxYoungGenerationMb, stackSizeMb: o.stackMb },
    });
    // A thread that dies (memory limit, time limit) is reported through its task.
    pool.on('error', () => {});
    return pool;
  }

  /**
   * Lets go of the threads; while another pool of the process holds them they stay for
   * it. The last pool to let go waits for the tasks running on them (at most 5 s: no
   * thread may end while it loads a module, D-1225), then leaves them idle for up to 2 s
   * (D-1229): an emulator created meanwhile (a test's, after the one before it closed)
   * reads its first document on threads that have their modules loaded instead of
   * starting new ones; else they end. Idle, they keep no process alive. Threads whose
   * task outlasts the wait are ended at once.
   */
  async close(): Promise<void> {
    const shared = this.#held;
    this.#held = undefined;
    if (!shared) return;
    shared.holders -= 1;
    if (shared.holders > 0) return;
    if (!shared.piscina) return this.#end(shared);
    const ended = await settledWithin([...shared.running], CLOSE_GRACE_MS);
    if (shared.holders > 0) return;
    if (!ended) return this.#end(shared);
    // A task started meanwhile (one a closed pool had queued) is waited for as above.
    const end = () =>
      settledWithin([...shared.running], CLOSE_GRACE_MS)
        .then(() => this.#end(shared))
        .catch(noop);
    shared.linger = setTimeout(end, Math.min(LINGER_MS, this.#options.idleTimeoutMs)).unref();
  }

  /** Ends the threads unless a pool holds them again; a later task starts others. */
  async #end(shared: SharedThreads): Promise<void> {
    shared.linger = undefined;
    if (shared.holders > 0) return;
    if (SHARED.get(this.#key) === shared) SHARED.delete(this.#key);
    const piscina = shared.piscina;
    shared.piscina = undefined;
    if (piscina) await (await piscina).destroy();
  }
}

/**
 * How long threads no pool holds wait for the next one (D-1229): long enough for a test
 * runner's next test to create its emulator, short enough that a runner giving each test
 * file fresh modules (Jest, vitest's VM pools) does not gather idle threads file after file.
 */
const LINGER_MS = 2_000;

/**
 * How long `close` lets the tasks running on the threads end before it ends the threads
 * (D-1225): a task reads a page in milliseconds, a thread loads its modules in a second
 * at most, and the longest tasks (the lexicon's learning) end in a few.
 */
const CLOSE_GRACE_MS = 5_000;

const noop = (): void => {};

/** Whether every one of `tasks` settled within `ms`; resolves as soon as that is known. */
async function settledWithin(tasks: readonly Promise<void>[], ms: number): Promise<boolean> {
  if (tasks.length === 0) return true;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(resolve, ms, false);
  });
  const ended = await Promise.race([Promise.all(tasks).then(() => true), late]);
  clearTimeout(timer);
  return ended;
}
