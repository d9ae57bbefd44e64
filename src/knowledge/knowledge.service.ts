import type { CoreDeps } from '../core.js';
import type { KnowledgeIndex } from './knowledge-index.js';
import { HashingEmbedder } from './pipeline/embedder.js';
import { SqlKnowledgeIndex } from './sql-index.js';

/** Knowledge: see API.md and CONTRACT.md. */
export class KnowledgeService {
  readonly #ingestFaults: string[] = [];
  readonly #index: SqlKnowledgeIndex;

  constructor(private readonly deps: CoreDeps) {
    this.#index = new SqlKnowledgeIndex({ db: deps.db, dialect: deps.dialect, embedder: deps.settings.embedder ?? new HashingEmbedder() });
  }

  /** What retrieval and chat read: eligible chunks, lexical search and the knowledge version. */
  get index(): KnowledgeIndex {
    return this.#index;
  }

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
