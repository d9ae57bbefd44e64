/**
 * BM25F over two fields (the chunk's headings and its body) in flat typed arrays, and a
 * query made of groups of alternative terms: a word's stems in both languages and its
 * expansions (synonyms, translations) are one group, and a chunk scores the best
 * alternative of each group, never their sum, so that an expansion can find a chunk
 * but never outweigh the word it came from.
 */

export interface FieldDoc {
  head: string[];
  body: string[];
}

export interface Bm25fOptions {
  k1: number;
  /** Weight of a heading occurrence against a body one. */
  headWeight: number;
  bHead: number;
  bBody: number;
  /**
   * Added per chunk, times the ceiling: the share of the query's weight that its headings
   * (and title) hold. A heading says what the whole section is about; BM25F's saturation
   * lets a body that repeats a word catch up with it, this does not.
   */
  headBonus: number;
}

export const DEFAULT_BM25F: Bm25fOptions = { k1: 1.2, headWeight: 1, bHead: 0.75, bBody: 0.75, headBonus: 0 };

export interface Alternative {
  term: string;
  /** 1 for the word itself; less for an expansion. */
  weight: number;
}

/** One word of the query: its alternatives (stems, expansions). */
export type Group = Alternative[];

/**
 * A chunk as ingestion would store it beside its text: its distinct term ids (in a
 * dictionary shared by the scope) with their heading and body counts, and the lengths
 * of its two fields. Assembling an index from these needs no text analysis.
 */
export interface StoredChunk {
  ids: Uint32Array;
  head: Uint16Array;
  body: Uint16Array;
  headLen: number;
  bodyLen: number;
}

/** Terms to ids, growing: the dictionary ingestion would keep per workspace. */
export class Dictionary {
  readonly ids = new Map<string, number>();

  id(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(term, id);
    }
    return id;
  }

  /** The stored form of an analysed chunk. */
  store(doc: FieldDoc): StoredChunk {
    const counts = new Map<number, [number, number]>();
    for (const t of doc.head) (counts.get(this.id(t)) ?? counts.set(this.id(t), [0, 0]).get(this.id(t))!)[0] += 1;
    for (const t of doc.body) (counts.get(this.id(t)) ?? counts.set(this.id(t), [0, 0]).get(this.id(t))!)[1] += 1;
    const ids = new Uint32Array(counts.size);
    const head = new Uint16Array(counts.size);
    const body = new Uint16Array(counts.size);
    let k = 0;
    for (const [id, [h, b]] of counts) {
      ids[k] = id;
      head[k] = Math.min(65535, h);
      body[k] = Math.min(65535, b);
      k += 1;
    }
    return { ids, head, body, headLen: doc.head.length, bodyLen: doc.body.length };
  }
}

/**
 * Postings of every term in flat arrays (compressed rows): the chunks holding term `id`
 * are `docs[offsets[id]] .. docs[offsets[id + 1] - 1]`, with their heading and body
 * counts beside. Two passes over the stored chunks, no per-term objects.
 */
export class Bm25fIndex {
  readonly size: number;
  readonly #dictionary: Dictionary;
  readonly #offsets: Uint32Array;
  readonly #docs: Uint32Array;
  readonly #head: Uint16Array;
  readonly #body: Uint16Array;
  readonly #headLen: Float32Array;
  readonly #bodyLen: Float32Array;
  readonly #avgHead: number;
  readonly #avgBody: number;

  /** From analysed chunks (analyses and assembles). */
  static build(docs: FieldDoc[], options: Bm25fOptions = DEFAULT_BM25F): Bm25fIndex {
    const dictionary = new Dictionary();
    return new Bm25fIndex(
      docs.map((d) => dictionary.store(d)),
      dictionary,
      options,
    );
  }

  constructor(
    stored: StoredChunk[],
    dictionary: Dictionary,
    readonly options: Bm25fOptions = DEFAULT_BM25F,
  ) {
    const n = stored.length;
    this.size = n;
    this.#dictionary = dictionary;
    const terms = dictionary.ids.size;
    this.#headLen = new Float32Array(n);
    this.#bodyLen = new Float32Array(n);
    const df = new Uint32Array(terms);
    let entries = 0;
    let sumHead = 0;
    let sumBody = 0;
    for (let i = 0; i < n; i++) {
      const s = stored[i]!;
      this.#headLen[i] = s.headLen;
      this.#bodyLen[i] = s.bodyLen;
      sumHead += s.headLen;
      sumBody += s.bodyLen;
      entries += s.ids.length;
      for (let k = 0; k < s.ids.length; k++) df[s.ids[k]!]! += 1;
    }
    this.#offsets = new Uint32Array(terms + 1);
    for (let id = 0; id < terms; id++) this.#offsets[id + 1] = this.#offsets[id]! + df[id]!;
    const cursor = this.#offsets.slice(0, terms);
    this.#docs = new Uint32Array(entries);
    this.#head = new Uint16Array(entries);
    this.#body = new Uint16Array(entries);
    for (let i = 0; i < n; i++) {
      const s = stored[i]!;
      for (let k = 0; k < s.ids.length; k++) {
        const at = cursor[s.ids[k]!]!++;
        this.#docs[at] = i;
        this.#head[at] = s.head[k]!;
        this.#body[at] = s.body[k]!;
      }
    }
    this.#avgHead = Math.max(1e-9, sumHead / Math.max(1, n));
    this.#avgBody = Math.max(1e-9, sumBody / Math.max(1, n));
  }

  /** How many distinct terms the index holds: how much of a language the knowledge uses. */
  get vocabularySize(): number {
    return this.#offsets.length - 1;
  }

  df(term: string): number {
    const id = this.#dictionary.ids.get(term);
    return id === undefined || id + 1 >= this.#offsets.length ? 0 : this.#offsets[id + 1]! - this.#offsets[id]!;
  }

  has(term: string): boolean {
    return this.df(term) > 0;
  }

  idf(term: string): number {
    const df = this.df(term);
    return Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
  }

  // Scratch arrays reused by every query: only the entries a query touched are reset.
  #total?: Float64Array;
  #best?: Float64Array;
  #inHead?: Float64Array;

  /**
   * The `k` best chunks for the query (ties by position), and the query's `ceiling`: the
   * score of a chunk of average length holding every group's best alternative once (the
   * sum of their weighted idf). Costs the postings of the query's terms, not the scope.
   */
  search(groups: Group[], k: number): { hits: { position: number; score: number }[]; ceiling: number } {
    const { k1, headWeight, bHead, bBody, headBonus } = this.options;
    this.#total ??= new Float64Array(this.size);
    this.#best ??= new Float64Array(this.size);
    this.#inHead ??= new Float64Array(this.size);
    const total = this.#total;
    const best = this.#best;
    const inHead = this.#inHead;
    const matched: number[] = [];
    let ceiling = 0;
    for (const group of groups) {
      const touched: number[] = [];
      let groupCeiling = 0;
      const headed = headBonus > 0 ? new Map<number, number>() : undefined;
      for (const { term, weight } of group) {
        const id = this.#dictionary.ids.get(term);
        if (id === undefined || id + 1 >= this.#offsets.length) continue;
        const idf = this.idf(term) * weight;
        groupCeiling = Math.max(groupCeiling, idf);
        for (let j = this.#offsets[id]!; j < this.#offsets[id + 1]!; j++) {
          const d = this.#docs[j]!;
          const h = this.#head[j]! / (1 - bHead + (bHead * this.#headLen[d]!) / this.#avgHead);
          const b = this.#body[j]! / (1 - bBody + (bBody * this.#bodyLen[d]!) / this.#avgBody);
          const tf = headWeight * h + b;
          const s = (idf * tf * (k1 + 1)) / (k1 + tf);
          if (best[d] === 0) touched.push(d);
          if (s > best[d]!) best[d] = s;
          if (headed && this.#head[j]! > 0) headed.set(d, Math.max(headed.get(d) ?? 0, idf));
        }
      }
      ceiling += groupCeiling;
      for (const d of touched) {
        if (total[d] === 0) matched.push(d);
        total[d]! += best[d]!;
        best[d] = 0;
      }
      if (headed) for (const [d, w] of headed) inHead[d]! += w;
    }
    if (headBonus > 0) for (const d of matched) total[d]! += headBonus * inHead[d]!;
    const top = topK(total, k, matched);
    const hits = top.map((position) => ({ position, score: total[position]! }));
    for (const d of matched) {
      total[d] = 0;
      inHead[d] = 0;
    }
    return { hits, ceiling };
  }
}

/** The `k` best positions by score (ties by position), best first, among `among` or all; positions with score 0 left out. */
export function topK(scores: ArrayLike<number>, k: number, among?: number[]): number[] {
  const best: number[] = [];
  const order = among ? [...among].sort((a, b) => a - b) : undefined;
  const n = order ? order.length : scores.length;
  for (let j = 0; j < n; j++) {
    const i = order ? order[j]! : j;
    const s = scores[i]!;
    if (s <= 0) continue;
    if (best.length === k && s <= scores[best[k - 1]!]!) continue;
    let at = best.length;
    while (at > 0 && scores[best[at - 1]!]! < s) at--;
    best.splice(at, 0, i);
    if (best.length > k) best.pop();
  }
  return best;
}
