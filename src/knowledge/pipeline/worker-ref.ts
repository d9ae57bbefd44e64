import { workerModule, type WorkerPool } from '../../platform/worker-pool.js';
import type * as ExtractWorker from './extract.worker.js';

/** The knowledge pipeline's worker module (extraction, chunking, counting, built-in vectors). */
export const EXTRACT_WORKER = workerModule<typeof ExtractWorker>(import.meta.url, 'extract.worker');

/**
 * Starts the pool's background threads with the pipeline's modules and vocabulary loaded
 * (D-1000), then, while nothing else asks for them, has them read what `rehearsals`
 * gives (Markdown texts, asked for once the modules are loaded) as web pages, every
 * other one with a marked `<main>`, and forget them (D-1220). Resolves with how many
 * were read.
 */
export async function warmPipeline(workers: WorkerPool, rehearsals: () => readonly string[] = () => []): Promise<number> {
  await workers.warm(EXTRACT_WORKER, 'warm', null);
  // Documents came meanwhile: no rehearsal, and its texts are not even read.
  if (!workers.idle) return 0;
  const pages = rehearsals().map((markdown, i) => ({ markdown, asPage: i % 2 === 0 ? ('main' as const) : ('readable' as const) }));
  return pages.length ? workers.whileIdle(EXTRACT_WORKER, 'rehearse', pages) : 0;
}
