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
