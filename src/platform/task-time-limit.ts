import { clearTimeout, setTimeout } from 'node:timers';
/**
 * How often the pool looks whether a thread has started a task it was handed. A
 * thread that already runs starts it within a millisecond or two; a new one first
 * loads its modules.
 */
const POLL_MS = 5;
/** Past this, a task not started yet is timed from now anyway (a thread that never gets to it). */
const NOT_STARTED_MS = 60_000;

/** One task's time limit: the flag its thread sets, the signal that ends it, and `stop` once it settled. */
export interface TaskTimeLimit {
  /** Goes in the task's envelope: the worker function sets it to 1 when it starts. */
  readonly started: Int32Array;
  /** Aborts `ms` after the task started (piscina then ends its thread). */
  readonly signal: AbortSignal;
  stop(): void;
}

/**
 * A task's time limit counted from the moment its thread starts it, not from when it
 * was handed over (decisions, D-1225): a new thread first loads the task's module, and
 * Node 20 aborts the whole process when a thread is ended while it loads an ES module
 * through `require()`, as piscina loads worker modules. It also keeps the limit what
 * the settings say it is, the task's own running time.
 */
export function taskTimeLimit(ms: number): TaskTimeLimit {
  const started = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  const controller = new AbortController();
  let waited = 0;
  let timer: NodeJS.Timeout | undefined;
  const later = (fn: () => void, after: number) => {
    timer = setTimeout(fn, after);
    // As AbortSignal.timeout's: a limit alone keeps no process alive.
    timer.unref();
  };
  const look = () => {
    if (Atomics.load(started, 0) === 1 || waited >= NOT_STARTED_MS) return later(() => controller.abort(), ms);
    waited += POLL_MS;
    later(look, POLL_MS);
  };
  later(look, POLL_MS);
  return {
    started,
    signal: controller.signal,
    stop: () => clearTimeout(timer),
  };
}
