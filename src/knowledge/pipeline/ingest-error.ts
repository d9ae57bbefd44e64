/**
 * A failure after acceptance with its machine-readable code (API.md, States and
 * transitions): the source moves to `failed` with `error` set to `code`.
 */
export class IngestError extends Error {
  constructor(readonly code: string, message = code) {
    super(message);
    this.name = 'IngestError';
  }
}

/**
 * The reasons a source fails on a limit, in the API's colon convention: a client that
 * knows only the base codes (`ingest_failed`, `unsupported_document`) still reads them.
 */
export const LIMIT_FAILURES = {
  /** Extraction ran over the per-task time limit of the worker pool. */
  timeLimit: 'ingest_failed:time_limit',
  /** Extraction ran over the worker's heap or buffer limit (a decompression bomb). */
  memoryLimit: 'ingest_failed:memory_limit',
  /** A PDF of more than `MAX_PDF_PAGES` pages. */
  tooManyPages: 'unsupported_document:too_many_pages',
  /** More than `MAX_TEXT_CHARS` characters of text extracted. */
  tooMuchText: 'unsupported_document:too_much_text',
} as const;

export type LimitFailure = (typeof LIMIT_FAILURES)[keyof typeof LIMIT_FAILURES];

/** Pages a PDF may have: 2,000 pages of text is a long book. */
export const MAX_PDF_PAGES = 2_000;

/** Characters of text one document may yield: ten times what a text add may carry (200,000). */
export const MAX_TEXT_CHARS = 2_000_000;
