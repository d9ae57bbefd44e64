import type { IndexedChunk, KnowledgeIndex } from '../knowledge/knowledge-index.js';
import { TermIndex } from './term-index.js';
import { truncatingStem } from '../text/stemmers.js';
import { termSet } from '../text/terms.js';
import { accentedWords } from '../text/words.js';

/** A chunk without its vector: the vectors live in the index's one flat matrix. */
export type ChunkMeta = Omit<IndexedChunk, 'vector'>;

export interface TopicEntry {
  /** Positions of the chunks tagged with the topic. */
  members: Uint32Array;
  /** Mean of their vectors, L2-normalised: where the topic sits in the vector space. */
  centroid: Float32Array;
  /** Stems of the tag's words (`opening-hours`: `open`, `hour`), to route by name. */
  stems: string[];
}

function normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}

/**
 * The eligible knowledge of one agent scope at one knowledge version, laid out for fast
 * scoring: metadata in chunk-id order and the vectors in one dimension-major
 * `Float32Array` (all chunks' first value, then all second values...). A query then
 * costs one linear pass per dimension it actually uses, and the hashed embedder's
 * queries use few of them: a short question touches a fraction of the dimensions, so
 * scoring is exact and still several times cheaper than a dot product per chunk
 * (decisions, D-095).
 */
export class ScopeIndex {
  readonly size: number;
  /** `columns[d * size + i]` is value `d` of chunk `i`. */
  readonly #columns: Float32Array;
  readonly #positions = new Map<string, number>();
  readonly topics = new Map<string, TopicEntry>();
  /** Which chunks hold which term, in their text or their source's title. */
  #terms!: TermIndex;
  readonly #titleTerms = new Map<string, Set<string>>();

  private constructor(
    readonly version: string,
    readonly dims: number,
    readonly chunks: ChunkMeta[],
    columns: Float32Array,
  ) {
    this.size = chunks.length;
    this.#columns = columns;
    chunks.forEach((c, i) => this.#positions.set(c.chunkId, i));
  }

  /**
   * Lays out `input`. With the `previous` index of the same scope, the terms of every
   * chunk whose title and text did not change are copied rather than read again.
   */
  static build(version: string, input: IndexedChunk[], dims: number, previous?: ScopeIndex): ScopeIndex {
    const sorted = [...input].sort((a, b) => (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0));
    const n = sorted.length;
    const columns = new Float32Array(n * dims);
    const metas: ChunkMeta[] = [];
    const members = new Map<string, number[]>();
    sorted.forEach((chunk, i) => {
      const { vector, ...meta } = chunk;
      const m = Math.min(dims, vector.length);
      for (let d = 0; d < m; d++) columns[d * n + i] = vector[d]!;
      metas.push(meta);
      for (const topic of chunk.topics) {
        let list = members.get(topic);
        if (!list) members.set(topic, (list = []));
        list.push(i);
      }
    });
    const index = new ScopeIndex(version, dims, metas, columns);
    const termsOf = (i: number) => {
      const set = termSet(metas[i]!.text);
      for (const term of index.titleTerms(i)) set.add(term);
      return set;
    };
    const unchanged = (i: number) => {
      const j = previous?.position(metas[i]!.chunkId);
      const before = j === undefined ? undefined : previous!.chunks[j]!;
      return before && before.text === metas[i]!.text && before.title === metas[i]!.title ? j : undefined;
    };
    index.#terms = TermIndex.build(n, termsOf, previous && { from: previous.#terms, position: unchanged });
    for (const [topic, list] of [...members].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const centroid = new Float32Array(dims);
      for (const i of list) for (let d = 0; d < dims; d++) centroid[d]! += columns[d * n + i]!;
      index.topics.set(topic, {
        members: Uint32Array.from(list),
        centroid: normalise(centroid),
        stems: [...new Set(accentedWords(topic.replace(/-/g, ' ')).map(truncatingStem))],
      });
    }
    return index;
  }

  /** In how many chunks a term occurs. */
  df(term: string): number {
    return this.#terms.df(term);
  }

  /** How telling a term is in this scope (BM25's idf, never negative): rare terms weigh more. */
  idf(term: string): number {
    const df = this.df(term);
    return Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
  }

  /** Whether the chunk at `position` holds `term`, in its text or its source's title. */
  has(term: string, position: number): boolean {
    return this.#terms.has(term, position);
  }

  /** The terms of the title of the chunk's source (chunks of a source share them). */
  titleTerms(position: number): Set<string> {
    const title = this.chunks[position]!.title;
    let set = this.#titleTerms.get(title);
    if (!set) this.#titleTerms.set(title, (set = termSet(title)));
    return set;
  }

  position(chunkId: string): number | undefined {
    return this.#positions.get(chunkId);
  }

  /** The dot product of `query` with every chunk vector (cosine: both are L2-normalised). */
  similarities(query: Float32Array): Float64Array {
    const n = this.size;
    const cols = this.#columns;
    const used: number[] = [];
    for (let d = 0; d < Math.min(this.dims, query.length); d++) if (query[d] !== 0) used.push(d);
    const out = new Float64Array(n);
    let j = 0;
    // Four dimensions per pass: a quarter of the read-modify-writes of `out`.
    for (; j + 4 <= used.length; j += 4) {
      const x0 = query[used[j]!]!;
      const x1 = query[used[j + 1]!]!;
      const x2 = query[used[j + 2]!]!;
      const x3 = query[used[j + 3]!]!;
      const b0 = used[j]! * n;
      const b1 = used[j + 1]! * n;
      const b2 = used[j + 2]! * n;
      const b3 = used[j + 3]! * n;
      for (let i = 0; i < n; i++) out[i]! += cols[b0 + i]! * x0 + cols[b1 + i]! * x1 + cols[b2 + i]! * x2 + cols[b3 + i]! * x3;
    }
    for (; j < used.length; j++) {
      const x = query[used[j]!]!;
      const b = used[j]! * n;
      for (let i = 0; i < n; i++) out[i]! += cols[b + i]! * x;
    }
    return out;
  }
}

/**
 * One `ScopeIndex` per agent scope, rebuilt when `index.version()` changes. Concurrent
 * queries of a scope share one build; the least recently used scopes are dropped past
 * `maxScopes`.
 */
export class ScopeIndexCache {
  readonly #entries = new Map<string, { version: string; index: Promise<ScopeIndex> }>();

  constructor(
    private readonly knowledge: KnowledgeIndex,
    private readonly maxScopes = 64,
  ) {}

  async get(workspaceId: string, agentId: string): Promise<ScopeIndex> {
    const version = await this.knowledge.version(workspaceId, agentId);
    const key = `${workspaceId}\u0000${agentId}`;
    const entry = this.#entries.get(key);
    if (entry && entry.version === version) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      return entry.index;
    }
    const previous = entry?.index.catch(() => undefined) ?? Promise.resolve(undefined);
    const index = Promise.all([this.knowledge.eligibleChunks(workspaceId, agentId), previous]).then(([chunks, before]) =>
      ScopeIndex.build(version, chunks, this.knowledge.embedder.dimensions, before),
    );
    this.#entries.delete(key);
    this.#entries.set(key, { version, index });
    // A failed build must not stay cached.
    index.catch(() => {
      if (this.#entries.get(key)?.index === index) this.#entries.delete(key);
    });
    while (this.#entries.size > this.maxScopes) this.#entries.delete(this.#entries.keys().next().value!);
    return index;
  }

  clear(): void {
    this.#entries.clear();
  }
}
