import type { IndexedChunk, ScopeIndexStore } from '../knowledge/knowledge-index.js';
import { snowballStem } from '../text/analyze.js';
import type { Language } from '../text/language.js';
import { accentedWords } from '../text/words.js';
import { LexicalIndex } from './lexical-index.js';
import { topPositions } from './top-positions.js';
import { crc32Bytes } from '../platform/crypto.js';
import { DamagedScopeIndex } from './postings-bytes.js';
import {
  canStoreScopeIndexes,
  decodeScopeIndex,
  encodeScopeIndex,
  quantise,
  readTopicBlock,
  type DecodedScopeIndex,
  type EncodedScopeIndex,
  type QuantisedVectors,
  type SourceMeta,
} from './scope-index-bytes.js';
import { nextTurn } from '../platform/turn.js';

/**
 * A chunk as a passage shows it, without its vector and terms, which the index lays
 * out; an index read back from the store holds no text either (see `ScopeIndex.texts`).
 */
export type ChunkMeta = Omit<IndexedChunk, 'vector' | 'terms' | 'text'> & { text?: string };

/** Where an index restored from the store reads the text and vectors it left out. */
export interface ChunkLoader {
  workspaceId: string;
  agentId: string;
  store: ScopeIndexStore;
}

export interface TopicEntry {
  /** Positions of the chunks tagged with the topic. */
  members: Uint32Array;
  /** Mean of their vectors, L2-normalised: where the topic sits in the vector space. */
  centroid: Float32Array;
  /** Stems of the tag's words in both languages (`opening-hours`: `open`, `hour`), to route by name. */
  stems: string[];
  /**
   * A restored index's: the stored block of its members' quantised vectors, and its CRC32
   * (D-602); in the rows of `version` when not the index's own (an index brought up to
   * date from an older one, D-610).
   */
  block?: { block: number; crc: number; version?: string };
}

function normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}

/** A topic's entry: its centroid summed in member order (a float32 sum, so the order matters), its stems. */
export function topicEntry(topic: string, members: readonly number[], vectorOf: (position: number) => Float32Array, dims: number): TopicEntry {
  const centroid = new Float32Array(dims);
  for (const i of members) {
    const v = vectorOf(i);
    for (let d = 0; d < Math.min(dims, v.length); d++) centroid[d]! += v[d]!;
  }
  const words = accentedWords(topic.replace(/-/g, ' '));
  const stems = [...new Set(words.flatMap((w) => [snowballStem(w, 'en'), snowballStem(w, 'es')]))];
  return { members: Uint32Array.from(members), centroid: normalise(centroid), stems };
}

/** What `ScopeIndex.assemble` makes an index of (see the constructor). */
export interface ScopeIndexParts {
  version: string;
  dims: number;
  dictionary: ReadonlyMap<string, number>;
  chunks: (ChunkMeta | undefined)[];
  lexical: LexicalIndex;
  vectors: (Float32Array | undefined)[];
  loader: ChunkLoader;
  restored: RestoredChunks;
  topics: [string, TopicEntry][];
  prints: [string, string][] | undefined;
}

/**
 * The eligible knowledge of one agent scope at one knowledge version: chunk metadata in
 * chunk-id order, the BM25F index assembled from the chunks' stored terms, the topics
 * with their centroids, and, built on first use (only a plugged embedder's ranking
 * needs it), the vectors in one dimension-major `Float32Array` (decisions, D-095, D-302).
 * Written to the store once built and read back after a restart without the chunks'
 * text and vectors, which it then reads by chunk id when a query needs them (D-308).
 */
export class ScopeIndex {
  readonly size: number;
  /** Per position; a restored index makes each when first asked (`chunk`). */
  readonly #chunks: (ChunkMeta | undefined)[];
  readonly #restored: RestoredChunks | undefined;
  /** Per language, the share of the chunks written in it (`languageShare`), counted once. */
  #spanishShare: number | undefined;
  readonly topics = new Map<string, TopicEntry>();
  readonly #vectors: (Float32Array | undefined)[];
  #columns: Float32Array | undefined;
  /** A restored index's topics' quantised member vectors, read on first use. */
  readonly #quantised = new Map<string, Promise<QuantisedVectors>>();
  /** Those read so far, for `toBytes`. */
  readonly #quantisedRead = new Map<string, QuantisedVectors>();
  /** The prints of the sources the version is made of, stored with the index when known (D-610). */
  prints: [string, string][] | undefined;

  private constructor(
    readonly version: string,
    readonly dims: number,
    /** The workspace's term dictionary the chunks' term ids come from. */
    readonly dictionary: ReadonlyMap<string, number>,
    chunks: (ChunkMeta | undefined)[],
    readonly lexical: LexicalIndex,
    vectors: (Float32Array | undefined)[],
    readonly loader?: ChunkLoader,
    restored?: RestoredChunks,
  ) {
    this.size = chunks.length;
    this.#chunks = chunks;
    this.#vectors = vectors;
    this.#restored = restored;
  }

  /** The chunk at `position` (chunk-id order), without its vector and terms. */
  /** The source of the chunk at `position`, without making its record (a restored index's are made when asked for). */
  sourceIdOf(position: number): string {
    return this.#chunks[position]?.sourceId ?? this.#restored!.sourceId(position);
  }

  chunk(position: number): ChunkMeta {
    let chunk = this.#chunks[position];
    if (chunk === undefined) {
      chunk = this.#restored!.make(position);
      this.#chunks[position] = chunk;
    }
    return chunk;
  }

  /**
   * The share of the chunks written in `lang` (0..1), counted on first use without making
   * a restored index's chunk metadata: how much of that language the knowledge has met (D-965).
   */
  languageShare(lang: Language): number {
    if (this.#spanishShare === undefined) {
      let spanish = 0;
      for (let i = 0; i < this.size; i++) if ((this.#chunks[i]?.lang ?? this.#restored!.lang(i)) === 'es') spanish += 1;
      this.#spanishShare = this.size ? spanish / this.size : 0;
    }
    return lang === 'es' ? this.#spanishShare : this.size ? 1 - this.#spanishShare : 0;
  }

  /** The topics of the chunk at `position`, without making its metadata. */
  topicsOf(position: number): string[] {
    return this.#chunks[position]?.topics ?? this.#restored!.topics(position);
  }

  /** Lays out `input` (any order) with the dictionary its term ids come from. */
  static build(version: string, input: IndexedChunk[], dims: number, dictionary: ReadonlyMap<string, number>, prints?: [string, string][]): ScopeIndex {
    // The knowledge index lists chunks by source and position, which is usually chunk-id order already.
    let inOrder = true;
    for (let i = 1; i < input.length && inOrder; i++) inOrder = input[i - 1]!.chunkId < input[i]!.chunkId;
    const sorted = inOrder ? input : [...input].sort((a, b) => (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0));
    // The chunks themselves, seen without their vector and terms: a copy of 100,000
    // objects would cost more than the rest of the build.
    const lexical = LexicalIndex.build(
      sorted.map((c) => c.terms),
      dictionary.size,
    );
    const index = new ScopeIndex(
      version,
      dims,
      dictionary,
      sorted,
      lexical,
      sorted.map((c) => c.vector),
    );
    index.prints = prints;
    const members = new Map<string, number[]>();
    sorted.forEach((chunk, i) => {
      for (const topic of chunk.topics) {
        let list = members.get(topic);
        if (!list) {
          list = [];
          members.set(topic, list);
        }
        list.push(i);
      }
    });
    for (const [topic, list] of [...members].sort(([a], [b]) => (a < b ? -1 : 1))) {
      index.topics.set(
        topic,
        topicEntry(topic, list, (i) => index.#vectors[i]!, dims),
      );
    }
    return index;
  }

  /** An index of parts made elsewhere: one brought up to date from an older stored one (D-610). */
  static assemble(parts: ScopeIndexParts): ScopeIndex {
    const index = new ScopeIndex(parts.version, parts.dims, parts.dictionary, parts.chunks, parts.lexical, parts.vectors, parts.loader, parts.restored);
    for (const [name, entry] of parts.topics) index.topics.set(name, entry);
    index.prints = parts.prints;
    return index;
  }

  /** The index as bytes for the store (without text and vectors; see `encode`), or undefined where the format is not written. */
  toBytes(): EncodedScopeIndex | undefined {
    return this.#bytes(this.lexical);
  }

  #bytes(lexical: LexicalIndex): EncodedScopeIndex | undefined {
    if (!canStoreScopeIndexes) return undefined;
    const sources: SourceMeta[] = [];
    const sourceAt = new Map<string, number>();
    // Made, not kept, where the index made none yet: a restored part stays without them.
    const chunks = Array.from({ length: this.size }, (_, i) => this.#chunks[i] ?? this.#restored!.make(i));
    const chunkSources = chunks.map((c) => {
      let at = sourceAt.get(c.sourceId);
      if (at === undefined) {
        at = sources.length;
        sourceAt.set(c.sourceId, at);
        sources.push({ sourceId: c.sourceId, agentId: c.agentId, title: c.title, topics: c.topics, ...(c.url !== undefined && { url: c.url }) });
      }
      return at;
    });
    return encodeScopeIndex(
      {
        version: this.version,
        dims: this.dims,
        sources,
        chunkIds: chunks.map((c) => c.chunkId),
        chunkSources,
        langs: chunks.map((c) => c.lang),
        tokenCounts: chunks.map((c) => c.tokenCount),
        lexical: lexical.parts(),
        topics: [...this.topics].map(([name, t]) => ({ name, stems: t.stems, members: t.members, centroid: t.centroid })),
        terms: [...this.dictionary].filter(([, id]) => this.lexical.df(id) > 0),
        prints: this.prints,
      },
      [...this.topics].map(([name, t]) => {
        if (t.members.every((i) => this.#vectors[i] !== undefined))
          return quantise(
            Array.from(t.members, (i) => this.#vectors[i]!),
            this.dims,
          );
        const read = this.#quantisedRead.get(name);
        if (!read) throw new Error(`topic ${name}: neither its vectors nor their stored quantised values are in memory`);
        return read;
      }),
    );
  }

  /**
   * `toBytes`, after making every term's postings (of an index whose terms are made on
   * demand) and reading the stored quantised vectors of the topics whose vectors are not
   * all in memory.
   */
  async encode(): Promise<EncodedScopeIndex | undefined> {
    if (!canStoreScopeIndexes) return undefined;
    const pending: Promise<QuantisedVectors>[] = [];
    for (const [name, t] of this.topics) {
      if (t.block && this.loader && !t.members.every((i) => this.#vectors[i] !== undefined)) pending.push(this.#quantisedOf(name, t));
    }
    await Promise.all(pending);
    const lexical = await this.lexical.inMemory();
    // Encoding a large scope takes a while: what came meanwhile goes first.
    await nextTurn();
    return this.#bytes(lexical);
  }

  /**
   * An index `toBytes` wrote at `version`, reading text and vectors through `loader`;
   * undefined when the bytes are not one. Its dictionary holds only the terms its chunks
   * use: a query word the scope never uses counts as unknown either way.
   */
  static fromBytes(bytes: Uint8Array, version: string, loader: ChunkLoader): ScopeIndex | undefined {
    const data = canStoreScopeIndexes ? decodeScopeIndex(bytes) : undefined;
    if (!data || data.version !== version) return undefined;
    const restored = storedChunks(data);
    const { workspaceId, agentId, store } = loader;
    const lexical = new LexicalIndex({
      ...data.lexical,
      stored: { ...data.lexical.stored, read: (blocks) => store.readBlocks(workspaceId, agentId, version, blocks) },
    });
    const size = data.size;
    const index = new ScopeIndex(
      version,
      data.dims,
      new Map(data.terms),
      new Array<ChunkMeta | undefined>(size),
      lexical,
      new Array<Float32Array | undefined>(size),
      loader,
      restored,
    );
    data.topics.forEach((t, k) => index.topics.set(t.name, { members: t.members, centroid: t.centroid, stems: t.stems, block: data.topicBlocks[k]! }));
    index.prints = data.prints;
    return index;
  }

  /** The text of the chunks at `positions`, from memory or, for a restored index, from the store. */
  async texts(positions: readonly number[]): Promise<(string | undefined)[]> {
    const missing = positions.filter((p) => this.chunk(p).text === undefined).map((p) => this.chunk(p).chunkId);
    const read = missing.length && this.loader ? await this.loader.store.texts(this.loader.workspaceId, missing) : undefined;
    return positions.map((p) => this.chunk(p).text ?? read?.get(this.chunk(p).chunkId));
  }

  /**
   * Makes sure the vectors of `positions` (every chunk without them) are in memory: a
   * restored index reads them from the store on first use, and keeps them.
   */
  async loadVectors(positions?: ArrayLike<number>): Promise<void> {
    const loader = this.loader;
    if (!loader) return;
    const missing: number[] = [];
    const n = positions ? positions.length : this.size;
    for (let j = 0; j < n; j++) {
      const p = positions ? positions[j]! : j;
      if (this.#vectors[p] === undefined) missing.push(p);
    }
    if (missing.length === 0) return;
    const read = await loader.store.vectors(
      loader.workspaceId,
      missing.map((p) => this.chunk(p).chunkId),
    );
    // A chunk deleted since the build scores nothing: the next query sees a new version.
    const none = new Float32Array(0);
    for (const p of missing) this.#vectors[p] = read.get(this.chunk(p).chunkId) ?? none;
  }

  /**
   * The `k` members of `topic` that `keep` accepts whose vectors are nearest `query`
   * (cosine, ties by member order), best first, as positions. A restored index reads
   * the topic's quantised vectors first (D-602): their bounds leave out every member
   * that cannot be among the `k`, and only the others' vectors are read, so the answer
   * is the exact one at a fraction of the reads.
   */
  async nearestMembers(topic: string, query: Float32Array, k: number, keep: (position: number) => boolean): Promise<number[]> {
    const entry = this.topics.get(topic)!;
    const members = entry.members;
    let among: number[] | undefined;
    if (entry.block && this.loader && members.some((p) => this.#vectors[p] === undefined)) {
      among = candidates(await this.#quantisedOf(topic, entry), query, this.dims, k, (j) => keep(members[j]!));
    }
    const look = among ?? Array.from(members.keys());
    await this.loadVectors(look.map((j) => members[j]!));
    const near = new Float64Array(members.length);
    for (const j of look) near[j] = this.similarity(members[j]!, query);
    return topPositions(near, k, (j) => keep(members[j]!), among).map((j) => members[j]!);
  }

  #quantisedOf(topic: string, entry: TopicEntry): Promise<QuantisedVectors> {
    let q = this.#quantised.get(topic);
    if (!q) {
      const { workspaceId, agentId, store } = this.loader!;
      const { block, crc, version } = entry.block!;
      q = store.readBlocks(workspaceId, agentId, version ?? this.version, [block]).then((read) => {
        const bytes = read.get(block);
        const vectors = bytes && crc32Bytes(bytes) === crc ? readTopicBlock(bytes, entry.members.length, this.dims) : undefined;
        if (!vectors) throw new DamagedScopeIndex(`vectors of topic ${topic}`);
        this.#quantisedRead.set(topic, vectors);
        return vectors;
      });
      this.#quantised.set(topic, q);
      q.catch(() => this.#quantised.delete(topic));
    }
    return q;
  }

  /** The cosine of one chunk's vector with `query` (both are L2-normalised). */
  similarity(position: number, query: Float32Array): number {
    const v = this.#vectors[position]!;
    let sum = 0;
    const n = Math.min(v.length, query.length);
    for (let d = 0; d < n; d++) sum += v[d]! * query[d]!;
    return sum;
  }

  /** The dot product of `query` with every chunk vector (cosine: both are L2-normalised). */
  similarities(query: Float32Array): Float64Array {
    const n = this.size;
    this.#columns ??= this.#layOut();
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

  /** `columns[d * size + i]` is value `d` of chunk `i`: a query costs one pass per dimension it uses. */
  #layOut(): Float32Array {
    const n = this.size;
    const columns = new Float32Array(n * this.dims);
    this.#vectors.forEach((vector, i) => {
      const m = Math.min(this.dims, vector!.length);
      for (let d = 0; d < m; d++) columns[d * n + i] = vector![d]!;
    });
    return columns;
  }
}

/**
 * The chunks of a decoded head, each made when first asked for: 100,000 objects cost
 * more than the rest of a restore.
 */
/** A restored index's chunks, each read per position when asked for. */
export interface RestoredChunks {
  make(position: number): ChunkMeta;
  topics(position: number): string[];
  lang(position: number): Language;
  sourceId(position: number): string;
}

export function storedChunks(data: DecodedScopeIndex): RestoredChunks {
  const { sources, chunkSources, tokenCounts } = data;
  return {
    make: (i) => {
      const s = sources[chunkSources[i]!]!;
      return {
        chunkId: data.chunkId(i),
        sourceId: s.sourceId,
        agentId: s.agentId,
        title: s.title,
        topics: s.topics,
        lang: data.lang(i),
        ...(s.url !== undefined && { url: s.url }),
        tokenCount: tokenCounts[i]!,
      };
    },
    topics: (i) => sources[chunkSources[i]!]!.topics,
    sourceId: (i) => sources[chunkSources[i]!]!.sourceId,
    lang: (i) => data.lang(i),
  };
}

/**
 * The members (indexes into the topic) that may be among the `k` nearest `query` that
 * `keep` accepts: each quantised similarity is off by at most half a scale step times
 * the query's L1 norm, so a member whose best case is below the `k`-th best worst case
 * cannot be among them (D-602). In member order.
 */
function candidates(q: QuantisedVectors, query: Float32Array, dims: number, k: number, keep: (j: number) => boolean): number[] {
  const n = q.scales.length;
  const used: number[] = [];
  let l1 = 0;
  for (let d = 0; d < Math.min(dims, query.length); d++) {
    if (query[d] === 0) continue;
    used.push(d);
    l1 += Math.abs(query[d]!);
  }
  const approx = new Float64Array(n);
  const slack = new Float64Array(n);
  const lower: number[] = [];
  for (let j = 0; j < n; j++) {
    if (!keep(j)) continue;
    const scale = q.scales[j]!;
    let sum = 0;
    for (const d of used) sum += q.values[j * dims + d]! * query[d]!;
    approx[j] = sum * scale;
    // Half a step per value, and a margin for the rounding of both sums.
    slack[j] = scale * 0.5 * l1 * (1 + 1e-6) + 1e-7;
    lower.push(approx[j]! - slack[j]!);
  }
  if (lower.length <= k) return Array.from({ length: n }, (_, j) => j).filter(keep);
  lower.sort((a, b) => b - a);
  const floor = lower[k - 1]!;
  const out: number[] = [];
  for (let j = 0; j < n; j++) if (approx[j]! + slack[j]! >= floor && keep(j)) out.push(j);
  return out;
}
