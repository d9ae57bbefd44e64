import { workerTask } from '../../platform/worker-task.js';
import { detectUploadFormat } from './formats.js';
import { IngestError } from './ingest-error.js';
import { prepareDocument, type DocumentInput, type Prepared } from './pipeline.js';

/**
 * The knowledge pipeline's worker module: everything whose cost grows with a document
 * runs here, off the thread that serves requests. A failure the pipeline expects comes
 * back as its code (an `IngestError` cannot cross threads).
 */
export const prepare = workerTask(async (input: DocumentInput & { embed: boolean }): Promise<{ prepared: Prepared } | { failed: string }> => {
  try {
    return { prepared: await prepareDocument(input, input.embed) };
  } catch (error) {
    if (error instanceof IngestError) return { failed: error.code };
    throw error;
  }
});

/** `detectUploadFormat` (a JSON upload is parsed to judge it). */
export const detect = workerTask((input: { fileName: string; declaredType: string; bytes: Uint8Array }) =>
  detectUploadFormat(input.fileName, input.declaredType, input.bytes),
);
