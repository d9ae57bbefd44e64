import type { Language } from '../text/language.js';
import type { Embedder } from './ports.js';

/**
 * The contract between the knowledge part (which ingests, chunks, embeds and indexes)
 * and retrieval and chat (which read). Knowledge implements it; retrieval and chat consume it.
 */

/** A `ready` chunk as retrieval sees it. */
export interface IndexedChunk {
  chunkId: string;
  sourceId: string;
  /** null: the workspace pool. */
  agentId: string | null;
  /** The source's title. */
  title: string;
  text: string;
  /** The source's topics; empty means universal. */
  topics: string[];
  lang: Language;
  /** For URL sources, the resolved URL. */
  url?: string;
  tokenCount: number;
  vector: Float32Array;
}

export interface LexicalHit {
  chunkId: string;
  /** Higher is better; not normalised. */
  score: number;
}

export interface KnowledgeIndex {
  readonly embedder: Embedder;
  /** Every `ready` chunk eligible for the agent: its own sources plus the workspace pool. */
  eligibleChunks(workspaceId: string, agentId: string): Promise<IndexedChunk[]>;
  /** Full-text search (FTS5 / Postgres) among the eligible chunks, best first. */
  searchLexical(workspaceId: string, agentId: string, query: string, limit: number): Promise<LexicalHit[]>;
  /**
   * Opaque; changes whenever the eligible knowledge of that agent changes (a source
   * becomes ready, is deleted, is re-crawled with new content, or is retagged).
   */
  version(workspaceId: string, agentId: string): Promise<string>;
}
