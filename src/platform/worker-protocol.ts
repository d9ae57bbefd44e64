import type { ErrorCode } from './error-codes.js';
import type { Detail, FieldError } from './service-error.js';

// What the pool (main thread) and a worker function (`worker-task.ts`, in a thread)
// exchange. Kept apart from both: the thread side patches globals when it loads.

/** What the pool sends a worker function: its input and the limits it runs under. */
export interface TaskEnvelope<I> {
  input: I;
  limits: { maxBufferBytes: number };
  /**
   * Set to 1 by the thread when the worker function starts, its module loaded: the
   * task's time limit counts from then (D-1225). Shared memory, so the pool sees it
   * while the task runs.
   */
  started?: Int32Array | undefined;
}

/** What a worker function sends back; errors cross the thread boundary as data. */
export type TaskResult<R> =
  | { ok: true; value: R }
  | { ok: false; limit: 'memory' }
  | { ok: false; error: { code: ErrorCode; detail?: Detail | undefined; errors?: FieldError[] | undefined } };

declare const TASK_TYPES: unique symbol;

/**
 * A worker function as its module exports it (`workerTask(fn)`): it takes an envelope in
 * a thread. `WorkerPool.run` reads what it takes and answers from the module's type, so a
 * renamed task, a wrong input or a wrong result is a compile error (decisions, D-805).
 */
export interface WorkerTask<I, R> {
  (envelope: TaskEnvelope<I>): Promise<unknown>;
  /** Types only (never set): the task's input and result. */
  readonly [TASK_TYPES]?: { input: I; result: R };
}

/** The names of a worker module's tasks: `'prepare' | 'isJson' | 'analyze'`. */
export type TaskNames<M> = { [K in keyof M]: M[K] extends WorkerTask<infer _I, unknown> ? K : never }[keyof M] & string;
/** What task `N` of worker module `M` takes. */
export type TaskInput<M, N extends keyof M> = M[N] extends WorkerTask<infer I, unknown> ? I : never;
/** What task `N` of worker module `M` answers. */
export type TaskOutput<M, N extends keyof M> = M[N] extends WorkerTask<infer _I, infer R> ? R : never;

/** The exit code of a thread ended by its buffer limit (the pool reports a memory limit). */
export const BUFFER_LIMIT_EXIT = 86;
