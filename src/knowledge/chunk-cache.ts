import type { Kysely } from 'kysely';
import type { Database } from '../db/schema/index.js';
import type { WorkerPool } from '../platform/worker-pool.js';
import { ANALYZER_ID, type ChunkAnalysis, hasHeading } from '../text/analyze.js';
import type { Language } from '../text/language.js';
import { chunkTerms, packTerms, unpackTerms } from './chunk-terms.js';
import type { ChunkTerms, IndexedChunk } from './knowledge-index.js';
import type { Embedder } from './ports.js';
import { packVector, unpackVector } from './pipeline/embedder.js';
import { storedTopics } from './sources.js';
import { EXTRACT_WORKER } from './pipeline/worker-ref.js';
import type { TermDictionary } from './term-dictionary.js';

const REEMBED_BATCH = 64;
/** Chunks per worker task when stored terms are analysed again. */
const REANALYSE_BATCH = 256;
// Past this many changed sources, one full reload is cheaper than a long IN list.
const REFRESH_LIMIT = 500;

interface CachedSource {
  agentId: string | null;
  chunks: IndexedChunk[];
  /** What the source row said when read: a different one means it changed (`verify`). */
  print: string;
}

/** The columns of a ready source that say whether its chunks or their metadata changed. */
const PRINT_COLUMNS = ['id', 'agent_id', 'content_hash', 'topics', 'title', 'lang', 'resolved_url', 'chunk_count'] as const;
type PrintRow = { [K in (typeof PRINT_COLUMNS)[number]]: unknown };
const printOf = (r: PrintRow) => JSON.stringify([r.agent_id, r.content_hash, r.topics, r.title, r.lang, r.resolved_url, Number(r.chunk_count)]);

interface WorkspaceChunks {
  sources: Map<string, CachedSource>;
  /** Source ids in order, so that every read lists chunks in the same order. */
  order: string[];
  /** Sources changed since they were read. */
  dirty: Set<string>;
  /** Everything changed: read the workspace again. */
  stale: boolean;
  loading: Promise<void> | undefined;
}

/**
 * The `ready` chunks of each workspace read so far, kept in memory and refreshed per
 * source as sources change, so that the eligible chunks of an agent come from memory:
 * reading 100,000 chunks with their vectors from the store takes seconds, refreshing
 * the one source that changed takes milliseconds. Every write to knowledge goes through
 * the knowledge service, which reports it here.
 */
export class ChunkCache {
  readonly #workspaces = new Map<string, WorkspaceChunks>();

  constructor(private readonly deps: { db: Kysely<Database>; embedder: Embedder; workers: WorkerPool; terms: TermDictionary }) {}

  /** Sources whose chunks or metadata changed; without ids, the whole workspace. */
  changed(workspaceId: string, sourceIds?: readonly string[]): void {
    const cached = this.#workspaces.get(workspaceId);
    if (!cached) return;
    if (sourceIds === undefined) cached.stale = true;
    else for (const id of sourceIds) cached.dirty.add(id);
  }

  /**
   * Compares the cached sources of a workspace with the store and marks those that
   * differ: for processes sharing the store, whose writes this one never hears of.
   */
  async verify(workspaceId: string): Promise<void> {
    const cached = this.#workspaces.get(workspaceId);
    if (!cached || cached.stale) return;
    while (cached.loading) await cached.loading;
    for (const id of await this.#differences(workspaceId, cached)) cached.dirty.add(id);
  }

  /**
   * Sources whose cached chunks differ from the store although nothing said they changed:
   * a write that did not record its invalidation on its transaction (D-960). Empty when
   * the workspace is not cached or already due for a reload. For the test suite's audit.
   */
  async unannounced(workspaceId: string): Promise<string[]> {
    const cached = this.#workspaces.get(workspaceId);
    if (!cached || cached.stale) return [];
    while (cached.loading) await cached.loading;
    return (await this.#differences(workspaceId, cached)).filter((id) => !cached.stale && !cached.dirty.has(id));
  }

  async #differences(workspaceId: string, cached: WorkspaceChunks): Promise<string[]> {
    const rows = await this.deps.db
      .selectFrom('knowledge_sources')
      .select(PRINT_COLUMNS)
      .where('workspace_id', '=', workspaceId)
      .where('status', '=', 'ready')
      .execute();
    const seen = new Set<string>();
    const differ: string[] = [];
    for (const row of rows) {
      seen.add(row.id);
      if (cached.sources.get(row.id)?.print !== printOf(row)) differ.push(row.id);
    }
    for (const id of cached.sources.keys()) if (!seen.has(id)) differ.push(id);
    return differ;
  }

  /** Forgets everything (a state import replaced the tables). */
  clear(): void {
    this.#workspaces.clear();
  }

  /** Drops workspaces that no longer exist (after a workspace was deleted), with their dictionaries. */
  async prune(): Promise<void> {
    if (this.#workspaces.size === 0) return;
    const ids = [...this.#workspaces.keys()];
    const alive = new Set((await this.deps.db.selectFrom('workspaces').select('id').where('id', 'in', ids).execute()).map((r) => r.id));
    for (const id of ids) {
      if (alive.has(id)) continue;
      this.#workspaces.delete(id);
      this.deps.terms.forget(id);
    }
  }

  /** The ready chunks of the agent's own sources and of the pool, by source then position. */
  async eligible(workspaceId: string, agentId: string): Promise<IndexedChunk[]> {
    const cached = await this.#current(workspaceId);
    const out: IndexedChunk[] = [];
    for (const id of cached.order) {
      const source = cached.sources.get(id)!;
      if (source.agentId === null || source.agentId === agentId) for (const chunk of source.chunks) out.push(chunk);
    }
    return out;
  }

  /**
   * The ready chunks of those sources eligible for the agent, read from the store and not
   * kept: what a stored index brought up to date needs (D-610), without the reading of the
   * whole workspace that filling this cache costs after a restart.
   */
  async ofSources(workspaceId: string, agentId: string, sourceIds: readonly string[]): Promise<IndexedChunk[]> {
    const out: IndexedChunk[] = [];
    for (const source of (await this.#read(workspaceId, [...sourceIds])).values()) {
      if (source.agentId === null || source.agentId === agentId) out.push(...source.chunks);
    }
    return out;
  }

  async #current(workspaceId: string): Promise<WorkspaceChunks> {
    let cached = this.#workspaces.get(workspaceId);
    if (!cached) {
      cached = { sources: new Map(), order: [], dirty: new Set(), stale: true, loading: undefined };
      this.#workspaces.set(workspaceId, cached);
    }
    // One reader refreshes; the others wait for it, then look again.
    while (cached.loading) await cached.loading;
    if (cached.stale || cached.dirty.size > 0) {
      cached.loading = this.#refresh(workspaceId, cached).finally(() => {
        cached.loading = undefined;
      });
      await cached.loading;
    }
    return cached;
  }

  async #refresh(workspaceId: string, cached: WorkspaceChunks): Promise<void> {
    const full = cached.stale || cached.dirty.size > REFRESH_LIMIT;
    const ids = full ? undefined : [...cached.dirty];
    cached.stale = false;
    cached.dirty = new Set();
    const fresh = await this.#read(workspaceId, ids);
    if (full) cached.sources.clear();
    for (const id of ids ?? []) cached.sources.delete(id);
    for (const [id, source] of fresh) cached.sources.set(id, source);
    cached.order = [...cached.sources.keys()].sort();
  }

  /** Reads ready sources (all, or those ids) with their chunks, re-embedding stale vectors and re-analysing stale terms. */
  async #read(workspaceId: string, ids: string[] | undefined): Promise<Map<string, CachedSource>> {
    const db = this.deps.db;
    let sourceQuery = db
      .selectFrom('knowledge_sources')
      .select([...PRINT_COLUMNS, 'kind', 'url'])
      .where('workspace_id', '=', workspaceId)
      .where('status', '=', 'ready');
    let chunkQuery = db
      .selectFrom('knowledge_chunks')
      .select(['id', 'source_id', 'position', 'lang', 'text', 'token_count', 'embedding', 'embedder_id', 'terms', 'analyzer_id'])
      .where('workspace_id', '=', workspaceId);
    if (ids) {
      if (ids.length === 0) return new Map();
      sourceQuery = sourceQuery.where('id', 'in', ids);
      chunkQuery = chunkQuery.where('source_id', 'in', ids);
    }
    const sources = await sourceQuery.execute();
    if (sources.length === 0) return new Map();
    const rows = await chunkQuery.execute();
    const stale = rows.filter((r) => r.embedder_id !== this.deps.embedder.id);
    const vectors = stale.length ? await this.#reembed(stale) : new Map<string, Float32Array>();
    const out = new Map<string, CachedSource>();
    for (const s of sources) out.set(s.id, { agentId: s.agent_id, chunks: [], print: printOf(s) });
    const meta = new Map(sources.map((s) => [s.id, { ...s, topics: storedTopics(s) }]));
    const unanalysed = rows.filter((r) => r.analyzer_id !== ANALYZER_ID || r.terms === null);
    // Whether a document has headings is a fact of all its chunks (D-1043): read here, where they all are.
    const headed = new Set(unanalysed.length ? rows.filter((r) => hasHeading(r.text)).map((r) => r.source_id) : []);
    const terms = unanalysed.length
      ? await this.#reanalyse(
          workspaceId,
          unanalysed
            .filter((r) => meta.has(r.source_id))
            .map((r) => ({
              id: r.id,
              text: r.text,
              title: meta.get(r.source_id)!.title,
              lang: r.lang === 'es' ? 'es' : 'en',
              headed: headed.has(r.source_id),
            })),
        )
      : new Map<string, ChunkTerms>();
    const positions = new Map<string, number>();
    for (const row of rows) {
      const source = meta.get(row.source_id);
      if (!source) continue;
      const url = source.kind === 'url' ? (source.resolved_url ?? source.url) : null;
      positions.set(row.id, Number(row.position));
      out.get(row.source_id)!.chunks.push({
        chunkId: row.id,
        sourceId: row.source_id,
        agentId: source.agent_id,
        title: source.title,
        text: row.text,
        topics: source.topics,
        lang: row.lang === 'es' ? 'es' : 'en',
        ...(url ? { url } : {}),
        tokenCount: Number(row.token_count),
        vector: vectors.get(row.id) ?? unpackVector(row.embedding),
        terms: terms.get(row.id) ?? unpackTerms(row.terms!),
      });
    }
    for (const source of out.values()) source.chunks.sort((a, b) => positions.get(a.chunkId)! - positions.get(b.chunkId)!);
    return out;
  }

  /**
   * Terms of chunks stored before this analysis (another `ANALYZER_ID`, or none),
   * analysed again in worker threads and stored with ids of the workspace's dictionary
   * (decisions, D-301): once, then every later read finds them.
   */
  async #reanalyse(
    workspaceId: string,
    rows: { id: string; text: string; title: string; lang: Language; headed: boolean }[],
  ): Promise<Map<string, ChunkTerms>> {
    const analyses: ChunkAnalysis[] = [];
    for (let i = 0; i < rows.length; i += REANALYSE_BATCH) {
      const batch = rows.slice(i, i + REANALYSE_BATCH).map(({ text, title, lang, headed }) => ({ text, title, lang, headed }));
      analyses.push(...(await this.deps.workers.run(EXTRACT_WORKER, 'analyze', batch)));
    }
    const out = new Map<string, ChunkTerms>();
    try {
      await this.deps.db.transaction().execute(async (trx) => {
        await this.deps.terms.lockFor(trx, [workspaceId]);
        const ids = await this.deps.terms.assign(
          trx,
          workspaceId,
          analyses.flatMap((a) => a.terms),
        );
        for (const [k, row] of rows.entries()) {
          const terms = chunkTerms(analyses[k]!, ids);
          out.set(row.id, terms);
          await trx
            .updateTable('knowledge_chunks')
            .set({ terms: packTerms(terms), analyzer_id: ANALYZER_ID })
            .where('id', '=', row.id)
            .execute();
        }
      });
    } catch (error) {
      this.deps.terms.forget(workspaceId);
      throw error;
    }
    return out;
  }

  /** Vectors of chunks written by another embedder (a replaced model), recomputed and stored. */
  async #reembed(rows: { id: string; text: string }[]): Promise<Map<string, Float32Array>> {
    const embedder = this.deps.embedder;
    const out = new Map<string, Float32Array>();
    for (let i = 0; i < rows.length; i += REEMBED_BATCH) {
      const batch = rows.slice(i, i + REEMBED_BATCH);
      const vectors = await embedder.embed(batch.map((r) => r.text));
      batch.forEach((r, j) => out.set(r.id, vectors[j]!));
    }
    await this.deps.db.transaction().execute(async (trx) => {
      for (const [id, vector] of out) {
        await trx
          .updateTable('knowledge_chunks')
          .set({ embedding: packVector(vector), embedder_id: embedder.id })
          .where('id', '=', id)
          .execute();
      }
    });
    return out;
  }
}
