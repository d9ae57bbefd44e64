import { workerModule, type WorkerPool } from '../../platform/worker-pool.js';
import type * as ExtractWorker from './extract.worker.js';

/** The knowledge pipeline's worker module (extraction, chunking, counting, built-in vectors). */
export const EXTRACT_WORKER = workerModule<typeof ExtractWorker>(import.meta.url, 'extract.worker');

/** Starts the pool's background threads with the pipeline's modules and vocabulary loaded (D-1000). */
export function warmPipeline(workers: WorkerPool): Promise<void> {
  return workers.warm(EXTRACT_WORKER, 'warm', null);
}
