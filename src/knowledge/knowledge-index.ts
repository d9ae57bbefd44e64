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
  /** Its analysed terms, as ingestion stored them (ids of the workspace's dictionary). */
  terms: ChunkTerms;
}

/**
 * A chunk's distinct terms (ids of its workspace's term dictionary) with their counts in
 * the heading field (headings and the source's title) and in the body, and the two
 * fields' lengths: what ingestion stores, so that an index is assembled without reading
 * any text again (decisions, D-301).
 */
export interface ChunkTerms {
  ids: Uint32Array;
  head: Uint16Array;
  body: Uint16Array;
  headLength: number;
  bodyLength: number;
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
  /**
   * The workspace's term dictionary: term to the id `IndexedChunk.terms` uses. It only
   * grows, so one read after `eligibleChunks` knows every id those chunks hold.
   */
  dictionary(workspaceId: string): Promise<ReadonlyMap<string, number>>;
  /** Full-text search (FTS5 / Postgres) among the eligible chunks, best first. */
  searchLexical(workspaceId: string, agentId: string, query: string, limit: number): Promise<LexicalHit[]>;
  /**
   * Opaque; changes whenever the eligible knowledge of that agent changes (a source
   * becomes ready, is deleted, is re-crawled with new content, or is retagged).
   */
  version(workspaceId: string, agentId: string): Promise<string>;
  /**
   * Optional, with `versionOf` and `sourceChunks`: what a version is made of, so that an
   * index of an older version is brought up to date by reading only the sources whose
   * print changed (decisions, D-610).
   */
  sources?(workspaceId: string, agentId: string): Promise<ScopeSources>;
  /** The version `prints` make with today's embedder and analyzer (`sources(…).version` for its own prints). */
  versionOf?(prints: readonly (readonly [string, string])[]): string;
  /** The `ready` chunks of those sources eligible for the agent, as `eligibleChunks` would list them (any order). */
  sourceChunks?(workspaceId: string, agentId: string, sourceIds: readonly string[]): Promise<IndexedChunk[]>;
  /**
   * Optional, with a store: where retrieval keeps each scope's built index between
   * restarts, and where it reads the text and vectors an index restored from it does not
   * hold (decisions, D-308).
   */
  readonly scopeIndexes?: ScopeIndexStore;
}

/** A stored scope index's values: the head and the blocks. */
export interface EncodedParts {
  head: Uint8Array;
  blocks: readonly Uint8Array[];
}

/** The prints of a scope's ready sources, in the order its version hashes them, and that version. */
export interface ScopeSources {
  version: string;
  /** Source id and print: a source whose print is unchanged has the same chunks, terms and vectors. */
  prints: [sourceId: string, print: string][];
}

/**
 * Built scope indexes as bytes, one per agent scope, in parts (a head and the postings'
 * blocks, decisions D-308, D-600), and the chunk data they leave out.
 */
export interface ScopeIndexStore {
  /** The head of the scope's stored index, whatever version it was built at (D-610). */
  readHead(workspaceId: string, agentId: string): Promise<{ version: string; data: Uint8Array } | undefined>;
  /** Blocks (numbered from 0) of the scope's stored index at `version`; a block not there is missing. */
  readBlocks(workspaceId: string, agentId: string, version: string, blocks: readonly number[]): Promise<Map<number, Uint8Array>>;
  /**
   * Keeps what `data` returns as the scope's index at `version` (replacing an older one),
   * calling it once the caller's current work is done; nothing when it returns (or
   * resolves to) undefined.
   */
  write(workspaceId: string, agentId: string, version: string, data: () => EncodedParts | undefined | Promise<EncodedParts | undefined>): Promise<void>;
  /** The text of those chunks (a chunk deleted since is missing). */
  texts(workspaceId: string, chunkIds: readonly string[]): Promise<Map<string, string>>;
  /** The vectors of those chunks (a chunk deleted since is missing). */
  vectors(workspaceId: string, chunkIds: readonly string[]): Promise<Map<string, Float32Array>>;
}
