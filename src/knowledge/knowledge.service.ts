import type { CoreDeps } from '../core.js';

/** Knowledge: see API.md and CONTRACT.md. */
export class KnowledgeService {
  readonly #ingestFaults: string[] = [];

  constructor(private readonly deps: CoreDeps) {}

  /**
   * Makes the next ingestion fail with `code` (the control plane's `ingest` fault);
   * several calls queue several failures.
   */
  failNextIngestion(code: string): void {
    this.#ingestFaults.push(code);
  }

  /** The next injected ingestion failure, if any (the pipeline takes it). */
  takeIngestFault(): string | undefined {
    return this.#ingestFaults.shift();
  }
}
