import type { IngestFailureCode } from '../../platform/ingest-failures.js';

/**
 * A failure after acceptance with its machine-readable code (API.md, States and
 * transitions): the source moves to `failed` with `error` set to `code`, one of the
 * registry (`platform/ingest-failures.ts`).
 */
export class IngestError extends Error {
  constructor(
    readonly code: IngestFailureCode,
    message: string = code,
  ) {
    super(message);
    this.name = 'IngestError';
  }
}

/** Pages a PDF may have: 2,000 pages of text is a long book (decisions, D-142). */
export const MAX_PDF_PAGES = 2_000;

/** Characters of text one document may yield: ten times what a text add may carry (200,000). */
export const MAX_TEXT_CHARS = 2_000_000;
