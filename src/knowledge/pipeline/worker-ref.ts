import { workerModule } from '../../platform/worker-pool.js';
import type * as ExtractWorker from './extract.worker.js';

/** The knowledge pipeline's worker module (extraction, chunking, counting, built-in vectors). */
export const EXTRACT_WORKER = workerModule<typeof ExtractWorker>(import.meta.url, 'extract.worker');
