import { workerTask } from '../../src/platform/worker-task.js';

/** A task that takes `ms` of wall time and answers it: what `worker-pool.test.ts` runs. */
export const pause = workerTask(async (ms: number) => {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return ms;
});
