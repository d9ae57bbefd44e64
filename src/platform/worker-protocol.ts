import type { ErrorCode } from './error-codes.js';
import type { Detail, FieldError } from './service-error.js';

// What the pool (main thread) and a worker function (`worker-task.ts`, in a thread)
// exchange. Kept apart from both: the thread side patches globals when it loads.

/** What the pool sends a worker function: its input and the limits it runs under. */
export interface TaskEnvelope<I> {
  input: I;
  limits: { maxBufferBytes: number };
}

/** What a worker function sends back; errors cross the thread boundary as data. */
export type TaskResult<R> =
  | { ok: true; value: R }
  | { ok: false; limit: 'memory' }
  | { ok: false; error: { code: ErrorCode; detail?: Detail | undefined; errors?: FieldError[] | undefined } };

/** The exit code of a thread ended by its buffer limit (the pool reports a memory limit). */
export const BUFFER_LIMIT_EXIT = 86;
