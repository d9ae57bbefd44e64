import { workerModule } from '../../platform/worker-pool.js';

/** The knowledge pipeline's worker module (extraction, chunking, counting, built-in vectors). */
export const EXTRACT_WORKER = workerModule(import.meta.url, 'extract.worker');
