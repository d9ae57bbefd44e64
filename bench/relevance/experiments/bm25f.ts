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
}

export const DEFAULT_BM25F: Bm25fOptions = { k1: 1.2, headWeight: 1, bHead: 0.75, bBody: 0.75 };

export interface Alternative {
  term: string;
  /** 1 for the word itself; less for an expansion. */
  weight: number;
}

/** One word of the query: its alternatives (stems, expansions). */
export type Group = Alternative[];

interface Postings {
  docs: Uint32Array;
  head: Float32Array;
  body: Float32Array;
}

export class Bm25fIndex {
  readonly size: number;
  readonly #postings = new Map<string, Postings>();
  readonly #headLen: Float32Array;
  readonly #bodyLen: Float32Array;
  readonly #avgHead: number;
  readonly #avgBody: number;

  constructor(
    docs: FieldDoc[],
    readonly options: Bm25fOptions = DEFAULT_BM25F,
  ) {
    this.size = docs.length;
    this.#headLen = new Float32Array(docs.length);
    this.#bodyLen = new Float32Array(docs.length);
    const lists = new Map<string, { docs: number[]; head: number[]; body: number[] }>();
    docs.forEach((doc, i) => {
      this.#headLen[i] = doc.head.length;
      this.#bodyLen[i] = doc.body.length;
      const counts = new Map<string, [number, number]>();
      for (const t of doc.head) (counts.get(t) ?? counts.set(t, [0, 0]).get(t)!)[0] += 1;
      for (const t of doc.body) (counts.get(t) ?? counts.set(t, [0, 0]).get(t)!)[1] += 1;
      for (const [t, [h, b]] of counts) {
        let list = lists.get(t);
        if (!list) lists.set(t, (list = { docs: [], head: [], body: [] }));
        list.docs.push(i);
        list.head.push(h);
        list.body.push(b);
      }
    });
    for (const [t, l] of lists) this.#postings.set(t, { docs: Uint32Array.from(l.docs), head: Float32Array.from(l.head), body: Float32Array.from(l.body) });
    this.#avgHead = Math.max(1e-9, this.#headLen.reduce((a, b) => a + b, 0) / Math.max(1, docs.length));
    this.#avgBody = Math.max(1e-9, this.#bodyLen.reduce((a, b) => a + b, 0) / Math.max(1, docs.length));
  }

  df(term: string): number {
    return this.#postings.get(term)?.docs.length ?? 0;
  }

  has(term: string): boolean {
    return this.#postings.has(term);
  }

  idf(term: string): number {
    const df = this.df(term);
    return Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
  }

  /** The terms of the vocabulary (for expansions that must exist in the index). */
  vocabulary(): IterableIterator<string> {
    return this.#postings.keys();
  }

  /**
   * Every chunk's score for the query, and its `ceiling`: the score of a chunk of average
   * length holding every group's best alternative once (the sum of their weighted idf).
   */
  score(groups: Group[]): { scores: Float64Array; ceiling: number } {
    const { k1, headWeight, bHead, bBody } = this.options;
    const total = new Float64Array(this.size);
    const best = new Float64Array(this.size);
    let ceiling = 0;
    for (const group of groups) {
      const touched: number[] = [];
      let groupCeiling = 0;
      for (const { term, weight } of group) {
        const p = this.#postings.get(term);
        if (!p) continue;
        const idf = this.idf(term) * weight;
        groupCeiling = Math.max(groupCeiling, idf);
        for (let j = 0; j < p.docs.length; j++) {
          const d = p.docs[j]!;
          const h = p.head[j]! / (1 - bHead + (bHead * this.#headLen[d]!) / this.#avgHead);
          const b = p.body[j]! / (1 - bBody + (bBody * this.#bodyLen[d]!) / this.#avgBody);
          const tf = headWeight * h + b;
          const s = (idf * tf * (k1 + 1)) / (k1 + tf);
          if (best[d] === 0) touched.push(d);
          if (s > best[d]!) best[d] = s;
        }
      }
      ceiling += groupCeiling;
      for (const d of touched) {
        total[d]! += best[d]!;
        best[d] = 0;
      }
    }
    return { scores: total, ceiling };
  }
}

/** The `k` best positions by score (ties by position), best first; positions with score 0 left out. */
export function topK(scores: ArrayLike<number>, k: number): number[] {
  const best: number[] = [];
  for (let i = 0; i < scores.length; i++) {
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
