import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { WorkerLimitError, WorkerPool, workerModule } from '../../src/platform/worker-pool.js';

const PAUSE = workerModule<typeof import('./pause.worker.js')>(import.meta.url, 'pause.worker');

describe('closing a worker pool (D-1225)', () => {
  it('lets the tasks running on its threads end before it ends the threads', async () => {
    // Options of its own: threads no other test's pool shares.
    const pool = new WorkerPool({ maxThreads: 2, idleTimeoutMs: 20_000 });
    expect(await pool.run(PAUSE, 'pause', 0)).toBe(0);
    const running = pool.run(PAUSE, 'pause', 400);
    while (pool.tasksStarted < 2) await tick();
    await pool.close();
    // Ended at once, the thread would have rejected the task ("Terminating worker thread");
    // ended while loading a module, it would have aborted this process.
    await expect(running).resolves.toBe(400);
    expect(await pool.threads()).toBe(0);
  });
});

describe("a task's time limit (D-1225)", () => {
  it('counts from the moment its thread starts it, not while a new thread loads its module', async () => {
    // A new thread takes longer than 150 ms to start and load the task's module (here
    // through tsx); ended then, it could abort the process.
    const pool = new WorkerPool({ maxThreads: 2, taskTimeoutMs: 150 });
    try {
      expect(await pool.run(PAUSE, 'pause', 10)).toBe(10);
      const over = await pool.run(PAUSE, 'pause', 5_000).catch((error: unknown) => error);
      expect(over).toBeInstanceOf(WorkerLimitError);
      expect((over as WorkerLimitError).limit).toBe('time');
    } finally {
      await pool.close();
    }
  });
});
