import { isMainThread } from 'node:worker_threads';
import { move } from 'piscina';
import { ServiceError } from './service-error.js';
import { BUFFER_LIMIT_EXIT, type TaskResult, type WorkerTask } from './worker-protocol.js';

// Binary buffers live outside the V8 heap: `resourceLimits` does not bound them, and a
// decoder fed a decompression bomb (a PDF stream, a PNG) grows them to gigabytes. Every
// typed array and ArrayBuffer constructor of this thread checks, for allocations of a
// MiB or more, that the thread's buffers stay under the task's limit. Libraries look
// these constructors up on the global object, so they get the checked ones. An object
// constructed with the proxy as `new.target` would take a map derived from it, not the
// platform's: every typed array of the thread another hidden class, and code over them
// (the lexicon's learning) twice as slow (D-1212). So the proxy constructs as the
// constructor itself; a subclass keeps its own `new.target`.
const LARGE = 1024 * 1024;
let maxBufferBytes = Number.POSITIVE_INFINITY;
let exceeded = false;

class BufferLimitError extends RangeError {
  constructor() {
    super('buffer memory limit');
    this.name = 'BufferLimitError';
  }
}

function check(bytes: number): void {
  if (bytes < LARGE) return;
  if (exceeded || process.memoryUsage().arrayBuffers + bytes > maxBufferBytes) {
    exceeded = true;
    // Libraries catch what they call and go on (pdf.js skips a broken stream and reads
    // the next): ending the thread here stops the work at once and frees its memory.
    if (!isMainThread) process.exit(BUFFER_LIMIT_EXIT);
    throw new BufferLimitError();
  }
}

function requested(args: unknown[], perElement: number): number {
  const first = args[0];
  if (typeof first === 'number') return first * perElement;
  if (first && typeof first === 'object' && !(first instanceof ArrayBuffer) && typeof (first as { length?: unknown }).length === 'number') {
    return (first as { length: number }).length * perElement;
  }
  return 0;
}

const TYPED = [
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
] as const;

/**
 * `ctor` checking the bytes `bytesOf` reads from its arguments; constructed as `ctor`
 * itself when it is `new.target` (D-1212), as its subclass when one is.
 */
function checked<C extends abstract new (...args: never[]) => unknown>(ctor: C, bytesOf: (args: unknown[]) => number): C {
  const guarded: C = new Proxy(ctor, {
    construct(target, args, newTarget) {
      check(bytesOf(args));
      return Reflect.construct(target, args, newTarget === guarded ? target : newTarget);
    },
  });
  return guarded;
}

function install(): void {
  const g = globalThis as unknown as Record<string, unknown>;
  if (g.__svcBufferGuard) return;
  g.__svcBufferGuard = true;
  for (const name of TYPED) {
    const ctor = g[name] as { BYTES_PER_ELEMENT: number } & (new (...args: unknown[]) => unknown);
    g[name] = checked(ctor, (args) => requested(args, ctor.BYTES_PER_ELEMENT));
  }
  g.ArrayBuffer = checked(ArrayBuffer, (args) => (typeof args[0] === 'number' ? args[0] : 0));
  for (const method of ['alloc', 'allocUnsafe', 'allocUnsafeSlow'] as const) {
    const original = Buffer[method] as (size: number, ...rest: unknown[]) => Buffer;
    (Buffer as unknown as Record<string, unknown>)[method] = (size: number, ...rest: unknown[]) => {
      check(size);
      return original.call(Buffer, size, ...rest);
    };
  }
}

// Installed when a worker module loads, before the libraries it imports lazily.
install();

// piscina moves (rather than copies) what a task returns when it is marked so: an
// object naming its transferable buffers, passed through `move`.
const TRANSFERABLE = Symbol.for('Piscina.transferable');
const VALUE = Symbol.for('Piscina.valueOf');
type Movable<T> = { readonly [TRANSFERABLE]: ArrayBuffer[]; readonly [VALUE]: T };

function movableResult<T>(result: T, buffers: ArrayBuffer[]): Movable<T> {
  return move({ [TRANSFERABLE]: buffers, [VALUE]: result } as never) as unknown as Movable<T>;
}

function isMemoryFailure(error: unknown): boolean {
  return (
    error instanceof BufferLimitError ||
    (error instanceof RangeError && /allocation failed|Invalid typed array length|Array buffer allocation/i.test(error.message))
  );
}

/**
 * Wraps a worker module's function: applies the task's buffer limit, and turns what
 * it throws into data the pool turns back: a `ServiceError` stays one; running out of
 * buffer memory (even when a library caught that and went on) is a memory limit.
 * Anything else is a bug and crosses as an error.
 */
export function workerTask<I, R>(fn: (input: I) => R | Promise<R>, options: { handBack?: (value: R) => ArrayBuffer[] } = {}): WorkerTask<I, R> {
  // What crosses back is a `TaskResult<R>`, maybe wrapped for piscina to move.
  return async ({ input, limits, started }): Promise<TaskResult<R> | Movable<TaskResult<R>>> => {
    if (started) Atomics.store(started, 0, 1);
    maxBufferBytes = limits.maxBufferBytes;
    exceeded = false;
    try {
      const value = await fn(input);
      if (exceeded) return { ok: false, limit: 'memory' };
      const result: TaskResult<R> = { ok: true, value };
      const buffers = options.handBack?.(value) ?? [];
      return buffers.length ? movableResult(result, buffers) : result;
    } catch (error) {
      if (exceeded || isMemoryFailure(error)) return { ok: false, limit: 'memory' };
      if (error instanceof ServiceError) return { ok: false, error: { code: error.code, detail: error.detail, errors: error.errors } };
      throw error;
    } finally {
      exceeded = false;
    }
  };
}

/** True once this task's buffers went over the limit (long loops stop early). */
export function overBufferLimit(): boolean {
  return exceeded;
}
