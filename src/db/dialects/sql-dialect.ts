import type { Dialect as KyselyDialect, Kysely } from 'kysely';
import type { Database } from '../schema/index.js';

/**
 * A connection whose table types this code does not know: migrations (they must not depend
 * on today's schema types), locks and closing. The one place `Kysely<any>` is spelled (D-941).
 */
// biome-ignore lint/suspicious/noExplicitAny: kysely's own Migration.up and Migrator take Kysely<any>; Kysely<unknown> has no tables a migration could insert into.
export type AnyKysely = Kysely<any>;

/** Which SQL a store speaks: SQLite (memory or file) or Postgres (PGlite, a server). */
export type DialectName = 'sqlite' | 'postgres';

/** Column types that differ between the dialects. */
export interface ColumnTypes {
  blob: 'blob' | 'bytea';
  real: 'real' | 'double precision';
  /** An integer primary key the database numbers by itself (`integer` is SQLite's rowid). */
  serial: 'integer' | 'bigserial';
}

/** One full-text hit on a knowledge chunk; higher scores are better (not normalised). */
export interface ChunkMatch {
  chunkId: string;
  score: number;
}

/**
 * The full-text index over `knowledge_chunks.text`: FTS5 on SQLite, a GIN `tsvector`
 * index on Postgres. Both fold accents, so `cafe` finds `café`.
 */
export interface ChunkFullText {
  /** Creates the index and whatever keeps it in sync (the knowledge migration calls it). */
  create(db: AnyKysely): Promise<void>;
  /**
   * The chunks of the workspace's pool and of `agentId` holding any of `terms` (folded
   * words, no operators), best first, then by id, at most `limit`.
   */
  search(db: Kysely<Database>, query: { workspaceId: string; agentId: string; terms: readonly string[]; limit: number }): Promise<ChunkMatch[]>;
}

/**
 * Everything that differs between the SQL backends, in one object per dialect
 * (`dialects/<name>/`): migrations and stores ask it instead of branching on a name.
 * A new backend adds a folder with its driver and, if it speaks a new dialect, one of these
 * (decisions, D-154).
 */
export interface SqlDialect {
  readonly name: DialectName;
  readonly columnTypes: ColumnTypes;
  readonly chunkFullText: ChunkFullText;
}

/** An opened backend: what kysely talks to, the dialect it speaks, and how to close it. */
export interface Backend {
  kysely: KyselyDialect;
  sql: SqlDialect;
  /**
   * Whether other processes may use the same database at the same time (a PostgreSQL
   * server). Default false: this process is the only user (SQLite, PGlite).
   */
  shared?: boolean;
  /** Where the data lives, for messages (never a password). */
  where?: string;
  /**
   * Runs `fn` while no other process runs an `exclusive` of the same name; `locked` is
   * the connection that holds the lock. Default: runs `fn` on `db` (one process).
   */
  exclusive?<T>(db: AnyKysely, name: string, fn: (locked: AnyKysely) => Promise<T>): Promise<T>;
  /** Whether `error` says the database cannot be reached right now. Default: never. */
  unavailable?(error: unknown): boolean;
  /** Whether `error` says the database rolled the transaction back to let another through (a deadlock). Default: never. */
  conflicted?(error: unknown): boolean;
  /** Closes the connection (after kysely has stopped using it). */
  close(db: AnyKysely): Promise<void>;
}
