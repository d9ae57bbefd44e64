import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { WorkerLimitError, WorkerPool, workerModule } from '../../src/platform/worker-pool.js';

const PAUSE = workerModule<typeof import('./pause.worker.js')>(import.meta.url, 'pause.worker');

describe('closing a worker pool (D-1225, D-1229)', () => {
  it('waits for the tasks running on its threads, then leaves them idle for the next pool', async () => {
    // Options of its own: threads no other test's pool shares.
    const options = { maxThreads: 2, idleTimeoutMs: 20_000 };
    const pool = new WorkerPool(options);
    expect(await pool.run(PAUSE, 'pause', 0)).toBe(0);
    const running = pool.run(PAUSE, 'pause', 400);
    while (pool.tasksStarted < 2) await tick();
    const closing = performance.now();
    await pool.close();
    // The last pool to close waits for the task (which may still be loading its module:
    // a thread ended then could abort this process) before it answers.
    expect(performance.now() - closing).toBeGreaterThanOrEqual(300);
    await expect(running).resolves.toBe(400);
    const threads = await pool.threads();
    expect(threads).toBeGreaterThan(0);
    // A pool built after the last one closed (the next test's emulator) runs on them.
    const next = new WorkerPool(options);
    try {
      expect(await next.threads()).toBe(threads);
      expect(await next.run(PAUSE, 'pause', 1)).toBe(1);
      expect(await next.threads()).toBe(threads);
    } finally {
      await next.close();
    }
  });

  it('ends the threads no pool takes within 2 s, long before their idle time, and starts new ones for a later task', async () => {
    // A runner that gives each test file fresh modules (Jest) would otherwise gather
    // every file's idle threads for their whole idle time.
    const options = { maxThreads: 2, idleTimeoutMs: 60_000 };
    const pool = new WorkerPool(options);
    expect(await pool.run(PAUSE, 'pause', 0)).toBe(0);
    await pool.close();
    expect(await pool.threads()).toBeGreaterThan(0);
    const left = performance.now();
    while ((await pool.threads()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(performance.now() - left).toBeGreaterThanOrEqual(1_500);
    const again = new WorkerPool(options);
    try {
      expect(await again.run(PAUSE, 'pause', 2)).toBe(2);
    } finally {
      await again.close();
    }
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
