/** Tables of the knowledge part (see ./core.ts for the column conventions). */
export interface KnowledgeSourceTable {
  id: string;
  workspace_id: string;
  /** null: the workspace pool. */
  agent_id: string | null;
  /** `upload`, `url` or `claim`. */
  kind: string;
  title: string;
  /** `pending`, `ready` or `failed`. */
  status: string;
  /** Machine-readable failure code (`fetch_timeout`...), or null. */
  error: string | null;
  lang: string;
  source_lang: string | null;
  translated: number;
  /** JSON array of normalised topic tags. */
  topics: string;
  file_name: string | null;
  content_type: string | null;
  byte_size: number | null;
  url: string | null;
  resolved_url: string | null;
  last_fetched_at: string | null;
  sync_ttl_minutes: number | null;
  next_sync_at: string | null;
  /** JSON `{ es, en }` for claims. */
  claim: string | null;
  chunk_count: number;
  token_count: number;
  summary: string;
  /** SHA-256 of the extracted text: a re-crawl replaces chunks only when it changes. */
  content_hash: string | null;
  created_at: string;
  updated_at: string;
}

/** The raw document of a source until its ingestion ends (so a restart can resume it). */
export interface KnowledgeInputTable {
  source_id: string;
  workspace_id: string;
  content: Uint8Array;
  created_at: string;
}

/**
 * Chunks of `ready` sources only: they are written in the transaction that makes the
 * source ready and deleted with it. `agent_id` repeats the source's (which never
 * changes) so eligibility needs no join. SQLite keeps an FTS5 index in sync by
 * triggers; Postgres a GIN expression index: neither is a column of this table.
 */
export interface KnowledgeChunkTable {
  id: string;
  workspace_id: string;
  source_id: string;
  agent_id: string | null;
  position: number;
  lang: string;
  text: string;
  token_count: number;
  /** Float32 little-endian, `dimensions` values. */
  embedding: Uint8Array;
  embedder_id: string;
  /** The chunk's analysed terms (ids of `knowledge_terms`, field counts); null until analysed. */
  terms: Uint8Array | null;
  /** The analysis that made `terms`: another one means analysing again. */
  analyzer_id: string | null;
}

/** Each workspace's term dictionary: ids only grow, a term keeps its id. */
export interface KnowledgeTermTable {
  workspace_id: string;
  term: string;
  id: number;
}

/**
 * A scope's built retrieval index as bytes (decisions, D-308, D-600): a head row and
 * the postings' blocks per agent scope, the latest version written, so that a restart
 * reads the head and the blocks its queries use instead of every chunk.
 * Derived: a state leaves it out, and another `version` means it is built again.
 */
export interface KnowledgeScopeIndexTable {
  workspace_id: string;
  agent_id: string;
  /** 0 for the head, 1 + n for block n of the postings (decisions, D-600). */
  part: number;
  version: string;
  data: Uint8Array;
}

/**
 * Each workspace's bilingual lexicon, learned from its own translations (decisions,
 * D-785, D-790): what it was learned from (`print`, a digest of the ready sources) and
 * the lexicon as JSON. A state carries it: the same sources learn the same text.
 */
export interface KnowledgeLexiconTable {
  workspace_id: string;
  print: string;
  data: string;
}

export interface KnowledgeTables {
  knowledge_sources: KnowledgeSourceTable;
  knowledge_inputs: KnowledgeInputTable;
  knowledge_chunks: KnowledgeChunkTable;
  knowledge_terms: KnowledgeTermTable;
  knowledge_scope_indexes: KnowledgeScopeIndexTable;
  knowledge_lexicons: KnowledgeLexiconTable;
}
