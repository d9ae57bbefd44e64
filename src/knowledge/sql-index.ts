import type { Kysely } from 'kysely';
import type { SqlDialect } from '../db/dialects/sql-dialect.js';
import { lockAgentRow } from '../db/row-locks.js';
import type { Database } from '../db/schema/index.js';
import { afterCommit, type Tx } from '../db/transaction.js';
import { sha256Hex } from '../platform/crypto.js';
import type { IndexedChunk, KnowledgeIndex, LexicalHit, ScopeIndexStore, ScopeSources } from './knowledge-index.js';
import { unpackVector } from './pipeline/embedder.js';
import type { Embedder } from './ports.js';
import { ChunkCache } from './chunk-cache.js';
import type { TermDictionary } from './term-dictionary.js';
import type { WorkerPool } from '../platform/worker-pool.js';
import { ANALYZER_ID } from '../text/analyze.js';
import { isFunctionWord } from '../text/stopwords.js';
import { words } from '../text/words.js';
import { nextTurn } from '../platform/turn.js';

const MAX_QUERY_TERMS = 32;
/** Chunk ids per `IN` list when text or vectors are read by id. */
const READ_BATCH = 500;
/** Parts of a stored scope index per insert: about 1 MB of blocks. */
const WRITE_BATCH = 16;

/** The folded, distinct words of a query; stopwords go unless nothing else is left. */
export function queryTerms(query: string): string[] {
  const all = [...new Set(words(query))];
  const content = all.filter((w) => !isFunctionWord(w));
  return (content.length ? content : all).slice(0, MAX_QUERY_TERMS);
}

/**
 * `KnowledgeIndex` over the store: chunks with their vectors and terms from
 * `knowledge_chunks` (kept in memory per workspace, see `ChunkCache`), each workspace's
 * term dictionary, lexical search through the
 * dialect's full-text index (FTS5 on SQLite, a GIN `tsvector` on Postgres), and a
 * content version per agent scope (decisions, D-084), memoised until the knowledge of
 * the workspace changes.
 */
export class SqlKnowledgeIndex implements KnowledgeIndex {
  // Bumped after every commit that changes what some agent of the workspace can retrieve.
  readonly #generations = new Map<string, number>();
  readonly #versions = new Map<string, { generation: number; sources: ScopeSources }>();
  #epoch = 0;

  readonly #chunks: ChunkCache;
  #prune = false;

  readonly scopeIndexes: ScopeIndexStore;
  /** Writes of built indexes still under way, awaited by `flush`. */
  readonly #writes = new Set<Promise<void>>();

  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      dialect: SqlDialect;
      embedder: Embedder;
      workers: WorkerPool;
      terms: TermDictionary;
      /**
       * Other processes write this store too (decisions, D-203): versions are read from
       * the store every time and cached chunks checked against it before use, rather
       * than trusted until this process hears of a change.
       */
      shared?: boolean | undefined;
    },
  ) {
    this.#chunks = new ChunkCache(deps);
    const db = deps.db;
    const byId = async <T>(
      workspaceId: string,
      chunkIds: readonly string[],
      column: 'text' | 'embedding',
      map: (value: never) => T,
    ): Promise<Map<string, T>> => {
      const out = new Map<string, T>();
      for (let i = 0; i < chunkIds.length; i += READ_BATCH) {
        // By primary key alone: with the workspace too, a planner may pick the workspace's index and scan it.
        const rows = await db
          .selectFrom('knowledge_chunks')
          .select(['id', 'workspace_id', column])
          .where('id', 'in', chunkIds.slice(i, i + READ_BATCH))
          .execute();
        for (const row of rows) if (row.workspace_id === workspaceId) out.set(row.id, map((row as Record<string, unknown>)[column] as never));
      }
      return out;
    };
    const parts = (workspaceId: string, agentId: string, version: string) =>
      db
        .selectFrom('knowledge_scope_indexes')
        .select(['part', 'data'])
        .where('workspace_id', '=', workspaceId)
        .where('agent_id', '=', agentId)
        .where('version', '=', version);
    this.scopeIndexes = {
      readHead: async (workspaceId, agentId) => {
        const row = await db
          .selectFrom('knowledge_scope_indexes')
          .select(['version', 'data'])
          .where('workspace_id', '=', workspaceId)
          .where('agent_id', '=', agentId)
          .where('part', '=', 0)
          .executeTakeFirst();
        return row && { version: row.version, data: row.data };
      },
      readBlocks: async (workspaceId, agentId, version, blocks) => {
        const out = new Map<number, Uint8Array>();
        for (let i = 0; i < blocks.length; i += READ_BATCH) {
          const rows = await parts(workspaceId, agentId, version)
            .where(
              'part',
              'in',
              blocks.slice(i, i + READ_BATCH).map((b) => b + 1),
            )
            .execute();
          for (const row of rows) out.set(Number(row.part) - 1, row.data);
        }
        return out;
      },
      write: (workspaceId, agentId, version, data) => {
        const epoch = this.#epoch;
        const write = (async () => {
          await nextTurn();
          // A state import since the build replaced the chunks its term ids come from.
          if (epoch !== this.#epoch) return;
          const encoded = await data();
          if (!encoded || epoch !== this.#epoch) return;
          const values = [encoded.head, ...encoded.blocks].map((bytes, part) => ({
            workspace_id: workspaceId,
            agent_id: agentId,
            part,
            version,
            data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
          }));
          await db.transaction().execute(async (trx) => {
            // Only while the agent exists: one deleted since the build would leave its rows behind (D-603).
            if (!(await lockAgentRow(trx, workspaceId, agentId))) return;
            await trx.deleteFrom('knowledge_scope_indexes').where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId).execute();
            for (let i = 0; i < values.length; i += WRITE_BATCH)
              await trx
                .insertInto('knowledge_scope_indexes')
                .values(values.slice(i, i + WRITE_BATCH))
                .execute();
          });
        })();
        this.#writes.add(write);
        return write.finally(() => this.#writes.delete(write));
      },
      texts: (workspaceId, chunkIds) => byId(workspaceId, chunkIds, 'text', (text: string) => text),
      vectors: (workspaceId, chunkIds) => byId(workspaceId, chunkIds, 'embedding', (bytes: Uint8Array) => unpackVector(bytes)),
    };
  }

  /** Waits for the writes of built indexes under way (before the store closes). */
  async flush(): Promise<void> {
    while (this.#writes.size) await Promise.allSettled([...this.#writes]);
  }

  get embedder(): Embedder {
    return this.deps.embedder;
  }

  /**
   * Marks what agents of a workspace can retrieve as changed by `trx`: those sources, or
   * with no ids the whole workspace. Memory learns it when `trx` commits (D-960): a
   * reader between the write and the commit would otherwise cache what is about to go.
   */
  changed(trx: Tx, workspaceId: string, sourceIds?: readonly string[]): void {
    afterCommit(trx, () => {
      this.#generations.set(workspaceId, (this.#generations.get(workspaceId) ?? 0) + 1);
      this.#chunks.changed(workspaceId, sourceIds);
    });
  }

  /** Forgets everything derived from the tables (a state import replaced them). */
  forget(): void {
    this.#epoch += 1;
    this.#generations.clear();
    this.#versions.clear();
    this.#chunks.clear();
    this.deps.terms.forget();
  }

  /** Some workspace changed or went away: versions are recomputed, caches of dropped workspaces freed. */
  workspacesChanged(): void {
    this.#epoch += 1;
    this.#generations.clear();
    this.#versions.clear();
    this.#prune = true;
  }

  async eligibleChunks(workspaceId: string, agentId: string): Promise<IndexedChunk[]> {
    if (this.deps.shared) await this.#chunks.verify(workspaceId);
    if (this.#prune) {
      this.#prune = false;
      await this.#chunks.prune();
    }
    return this.#chunks.eligible(workspaceId, agentId);
  }

  async dictionary(workspaceId: string): Promise<ReadonlyMap<string, number>> {
    return this.deps.terms.get(workspaceId);
  }

  async searchLexical(workspaceId: string, agentId: string, query: string, limit: number): Promise<LexicalHit[]> {
    const terms = queryTerms(query);
    const n = Math.max(1, Math.min(1000, Math.floor(limit)));
    if (terms.length === 0) return [];
    return this.deps.dialect.chunkFullText.search(this.deps.db, { workspaceId, agentId, terms, limit: n });
  }

  async version(workspaceId: string, agentId: string): Promise<string> {
    return (await this.sources(workspaceId, agentId)).version;
  }

  async sources(workspaceId: string, agentId: string): Promise<ScopeSources> {
    const generation = this.#generation(workspaceId);
    const key = `${workspaceId}\n${agentId}`;
    const memo = this.deps.shared ? undefined : this.#versions.get(key);
    if (memo && memo.generation === generation) return memo.sources;
    const sources = await this.#readSources(workspaceId, agentId);
    this.#versions.set(key, { generation, sources });
    return sources;
  }

  /**
   * What memory holds for the scope that the store no longer says, although no committed
   * transaction announced a change (D-960): chunks of sources, or the scope's version.
   * The test suite audits every read with it, so that a write which forgets to record its
   * invalidation fails the tests that read after it.
   */
  async unannounced(workspaceId: string, agentId: string): Promise<string[]> {
    // Other processes' writes are never announced here: `verify` finds them before each use.
    if (this.deps.shared) return [];
    const out = (await this.#chunks.unannounced(workspaceId)).map((id) => `the chunks of ${id}`);
    const memo = this.#versions.get(`${workspaceId}\n${agentId}`);
    if (memo && memo.generation === this.#generation(workspaceId)) {
      const fresh = await this.#readSources(workspaceId, agentId);
      if (fresh.version !== memo.sources.version && memo.generation === this.#generation(workspaceId)) out.push(`the knowledge version of ${agentId}`);
    }
    return out;
  }

  #generation(workspaceId: string): number {
    return this.#epoch * 1e9 + (this.#generations.get(workspaceId) ?? 0);
  }

  async #readSources(workspaceId: string, agentId: string): Promise<ScopeSources> {
    const rows = await this.deps.db
      .selectFrom('knowledge_sources')
      .select(['id', 'content_hash', 'topics', 'title', 'lang', 'resolved_url', 'chunk_count'])
      .where('workspace_id', '=', workspaceId)
      .where('status', '=', 'ready')
      .where((eb) => eb.or([eb('agent_id', '=', agentId), eb('agent_id', 'is', null)]))
      .orderBy('id')
      .execute();
    const prints = rows.map((r): [string, string] => [r.id, JSON.stringify([r.id, r.content_hash, r.topics, r.title, r.lang, r.resolved_url, r.chunk_count])]);
    return { version: this.versionOf(prints), prints };
  }

  versionOf(prints: readonly (readonly [string, string])[]): string {
    const print = prints.map(([, p]) => p).join('\n');
    return `kv_${sha256Hex(`${this.embedder.id}\n${ANALYZER_ID}\n${print}`).slice(0, 24)}`;
  }

  async sourceChunks(workspaceId: string, agentId: string, sourceIds: readonly string[]): Promise<IndexedChunk[]> {
    return this.#chunks.ofSources(workspaceId, agentId, sourceIds);
  }
}
