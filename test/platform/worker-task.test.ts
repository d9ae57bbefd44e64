import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { workerTask } from '../../src/platform/worker-task.js';

// V8's own test of hidden classes: two objects of one map take the same fast paths.
setFlagsFromString('--allow-natives-syntax');
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: unknown, b: unknown) => boolean;

// Importing worker-task installs the buffer guard on this thread, as in a worker thread.
describe("a worker thread's buffer guard", () => {
  it("makes typed arrays and buffers of the platform's own hidden class", () => {
    // Made under a map derived from the guard's proxy, every typed array of a thread was
    // of another hidden class than the platform's: the lexicon's learning ran twice as long.
    const made = [new Float64Array(4), new Float32Array(4), new Uint32Array(4), new Int32Array(4), new Uint8Array(4), new Uint16Array(4)];
    for (const array of made) expect(sameMap(array, structuredClone(array)), array.constructor.name).toBe(true);
    expect(sameMap(new ArrayBuffer(8), structuredClone(new ArrayBuffer(8)))).toBe(true);
  });

  it('leaves a subclass its own prototype', () => {
    class Vector extends Float64Array {}
    const v = new Vector(2);
    expect(v).toBeInstanceOf(Vector);
    expect(v).toBeInstanceOf(Float64Array);
    expect(Object.getPrototypeOf(v)).toBe(Vector.prototype);
  });

  it("still refuses a typed array or a buffer over the task's limit", async () => {
    const limits = { maxBufferBytes: 1024 * 1024 };
    const floats = workerTask((n: number) => new Float64Array(n).length);
    const bytes = workerTask((n: number) => new ArrayBuffer(n).byteLength);
    expect(await floats({ input: 1024 * 1024, limits })).toEqual({ ok: false, limit: 'memory' });
    expect(await bytes({ input: 2 * 1024 * 1024, limits })).toEqual({ ok: false, limit: 'memory' });
    expect(await floats({ input: 16, limits })).toEqual({ ok: true, value: 16 });
  });
});
