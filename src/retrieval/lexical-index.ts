import type { ChunkTerms } from '../knowledge/knowledge-index.js';
import { crc32Bytes } from '../platform/crypto.js';
import { DamagedScopeIndex, unpackTerm, type StoredPostings, type TermPostings } from './postings-bytes.js';

/** BM25's constants (decisions, D-760): the textbook k1 and b. */
const K1 = 1.2;
const B = 0.75;

/** Postings made on demand: some terms' (as a query uses them), or every term's at once, laid out by `offsets` (to write the index, D-1156). */
export interface TermMaker {
  some(ids: readonly number[]): Promise<Map<number, TermPostings>>;
  all(): Promise<TermPostings>;
}

/** One word of a query: the ids of its alternatives (its stems in both languages). */
export type TermGroup = readonly number[];

/** The arrays of a `LexicalIndex` (see the class for their layout). */
export interface LexicalParts {
  size: number;
  vocabularySize: number;
  offsets: Uint32Array;
  /** The postings, unpacked (a built index) or left in the store (one read back from it). */
  docs?: Uint32Array;
  head?: Uint16Array;
  body?: Uint16Array;
  stored?: StoredPostings;
  /**
   * Or made per term when a query first uses it, by whoever gave the index (one brought
   * up to date from a stored one of an older version, D-610).
   */
  terms?: TermMaker;
  /**
   * Per chunk, the lengths of its two fields: kept rather than the norms, which depend
   * on the average lengths and so change with every chunk added or removed (D-610).
   */
  headLengths: Uint32Array;
  bodyLengths: Uint32Array;
}

export interface LexicalHit {
  position: number;
  score: number;
}

/** The chunks whose source has no twin (1 each), and what a translation weighs in them (D-1123). */
export interface LoneChunks {
  chunks: Uint8Array;
  weight: number;
}

/**
 * Okapi BM25 over one scope's chunks (D-760), assembled from their stored terms. The
 * stored format keeps two fields per posting (a heading field once weighed twice,
 * D-302); since D-760 analysis leaves the heading field empty and only the body counts.
 * Postings in flat typed arrays (the chunks
 * holding term `id` are `docs[offsets[id]] .. docs[offsets[id + 1] - 1]`, ascending,
 * with their heading and body counts beside), two passes, no per-term object and no
 * text read. A hundred thousand chunks make millions of entries; typed arrays keep them
 * compact and off the garbage collector's back.
 */
export class LexicalIndex {
  readonly size: number;
  /** How many distinct terms the scope uses: how much of a language its knowledge has met. */
  readonly vocabularySize: number;
  readonly #offsets: Uint32Array;
  readonly #docs: Uint32Array;
  readonly #head: Uint16Array;
  readonly #body: Uint16Array;
  readonly #stored: StoredPostings | undefined;
  readonly #terms: TermMaker | undefined;
  /** Blocks of a stored index read so far, kept: each is read once (at most the whole postings, packed). */
  readonly #blocks: (Uint8Array | undefined)[] = [];
  /** Terms of a stored index read so far (a query reads the terms it uses, once: `load`). */
  readonly #unpacked: (TermPostings | undefined)[] = [];
  /** Per chunk, BM25's length normalisation: `1 - b + b * length / average`. */
  readonly #bodyNorm: Float32Array;
  readonly #headLengths: Uint32Array;
  readonly #bodyLengths: Uint32Array;
  // Scratch arrays every query reuses: it resets only the entries it touched.
  readonly #total: Float64Array;
  readonly #best: Float64Array;
  readonly #own: Float64Array;
  readonly #touched: Uint32Array;
  readonly #matched: Uint32Array;

  /** `terms` in scope order; ids are below `dictionarySize` (ids past it are ignored). */
  static build(terms: readonly ChunkTerms[], dictionarySize: number): LexicalIndex {
    const n = terms.length;
    const df = new Uint32Array(dictionarySize);
    let entries = 0;
    const headLengths = new Uint32Array(n);
    const bodyLengths = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      const t = terms[i]!;
      headLengths[i] = t.headLength;
      bodyLengths[i] = t.bodyLength;
      for (let k = 0; k < t.ids.length; k++) {
        const id = t.ids[k]!;
        if (id < dictionarySize) {
          df[id]! += 1;
          entries += 1;
        }
      }
    }
    const offsets = new Uint32Array(dictionarySize + 1);
    let vocabulary = 0;
    for (let id = 0; id < dictionarySize; id++) {
      offsets[id + 1] = offsets[id]! + df[id]!;
      if (df[id]! > 0) vocabulary += 1;
    }
    const cursor = offsets.slice(0, dictionarySize);
    const docs = new Uint32Array(entries);
    const head = new Uint16Array(entries);
    const body = new Uint16Array(entries);
    for (let i = 0; i < n; i++) {
      const t = terms[i]!;
      for (let k = 0; k < t.ids.length; k++) {
        const id = t.ids[k]!;
        if (id >= dictionarySize) continue;
        const at = cursor[id]!++;
        docs[at] = i;
        head[at] = t.head[k]!;
        body[at] = t.body[k]!;
      }
    }
    return new LexicalIndex({ size: n, vocabularySize: vocabulary, offsets, docs, head, body, headLengths, bodyLengths });
  }

  /** An index from the arrays `parts` gave (a built index read back from the store, D-308). */
  constructor(parts: LexicalParts) {
    const n = parts.size;
    this.size = n;
    this.vocabularySize = parts.vocabularySize;
    this.#offsets = parts.offsets;
    this.#docs = parts.docs ?? new Uint32Array(0);
    this.#head = parts.head ?? new Uint16Array(0);
    this.#body = parts.body ?? new Uint16Array(0);
    this.#stored = parts.stored;
    this.#terms = parts.terms;
    this.#headLengths = parts.headLengths;
    this.#bodyLengths = parts.bodyLengths;
    this.#bodyNorm = norms(parts.bodyLengths);
    this.#total = new Float64Array(n);
    this.#best = new Float64Array(n);
    this.#own = new Float64Array(n);
    this.#touched = new Uint32Array(n);
    this.#matched = new Uint32Array(n);
  }

  /** Everything the index is made of, to be written and read back as it is (not one whose terms are made on demand: `inMemory`). */
  parts(): LexicalParts {
    if (this.#terms) throw new Error('the postings of this index are made per term: see inMemory');
    return {
      size: this.size,
      vocabularySize: this.vocabularySize,
      offsets: this.#offsets,
      headLengths: this.#headLengths,
      bodyLengths: this.#bodyLengths,
      ...(this.#stored ? { stored: this.#stored } : { docs: this.#docs, head: this.#head, body: this.#body }),
    };
  }

  /**
   * Makes sure the postings of `ids` are in memory before `search` uses them: an index
   * read back from the store reads the blocks holding them, once. Throws
   * `DamagedScopeIndex` when a block is missing or unlike it was written.
   */
  async load(ids: Iterable<number>): Promise<void> {
    if (this.#terms) {
      const missing = [...new Set(ids)].filter((id) => this.df(id) > 0 && !this.#unpacked[id]);
      for (const [id, term] of missing.length ? await this.#terms.some(missing) : []) this.#unpacked[id] = term;
      return;
    }
    const stored = this.#stored;
    if (!stored) return;
    const wanted = new Map<number, number[]>();
    for (const id of ids) {
      if (this.df(id) === 0 || this.#unpacked[id]) continue;
      const block = blockOf(stored.firstTerms, id);
      let list = wanted.get(block);
      if (!list) {
        list = [];
        wanted.set(block, list);
      }
      list.push(id);
    }
    if (wanted.size === 0) return;
    const missing = [...wanted.keys()].filter((b) => !this.#blocks[b]).sort((a, b) => a - b);
    const read = missing.length ? await stored.read(missing) : new Map<number, Uint8Array>();
    for (const block of missing) {
      const bytes = read.get(block);
      const base = stored.byteStarts[block]!;
      if (!bytes || bytes.byteLength !== stored.byteStarts[block + 1]! - base || crc32Bytes(bytes) !== stored.crcs[block])
        throw new DamagedScopeIndex(`postings block ${block}`);
      this.#blocks[block] = bytes;
    }
    for (const [block, list] of wanted) {
      const bytes = this.#blocks[block]!;
      const base = stored.byteStarts[block]!;
      for (const id of list) {
        const term = unpackTerm({ starts: stored.starts, bytes }, id, this.df(id), base);
        if (!term) throw new DamagedScopeIndex(`postings of term ${id}`);
        this.#unpacked[id] = term;
      }
    }
  }

  /** Where term `id`'s postings lie: entries `from` to `to - 1` of the three arrays. */
  #postings(id: number): TermPostings & { from: number; to: number } {
    if (!this.#stored && !this.#terms) return { docs: this.#docs, head: this.#head, body: this.#body, from: this.#offsets[id]!, to: this.#offsets[id + 1]! };
    const term = this.#unpacked[id];
    if (!term) throw new Error(`term ${id} searched before it was loaded`);
    return { ...term, from: 0, to: term.docs.length };
  }

  /**
   * This index with every term's postings in memory, laid out as a build lays them out:
   * itself, unless its terms are made on demand (then all of them are made, and not kept).
   */
  async inMemory(): Promise<LexicalIndex> {
    if (!this.#terms) return this;
    const { docs, head, body } = await this.#terms.all();
    return new LexicalIndex({
      size: this.size,
      vocabularySize: this.vocabularySize,
      offsets: this.#offsets,
      docs,
      head,
      body,
      headLengths: this.#headLengths,
      bodyLengths: this.#bodyLengths,
    });
  }

  /** In how many chunks of the scope a term occurs (0 for an id the scope never uses). */
  df(id: number): number {
    return id + 1 < this.#offsets.length ? this.#offsets[id + 1]! - this.#offsets[id]! : 0;
  }

  /** BM25's idf, never negative: rare terms weigh more. */
  idf(id: number): number {
    const df = this.df(id);
    return Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
  }

  /**
   * The highest BM25 a question whose terms' idf add up to `idfSum` could give a chunk:
   * each term saturated (`k1 + 1` times its idf). Passage scores are over it, in 0..1.
   */
  highestScore(idfSum: number): number {
    return (K1 + 1) * idfSum;
  }

  /** The idf a term the scope never uses would have. */
  get unseenIdf(): number {
    return Math.log(1 + (this.size + 0.5) / 0.5);
  }

  /**
   * Whether some chunk holds a term of every group (the words of one name, D-910): the
   * postings of the rarest group, kept while each other group holds them. Costs those
   * groups' postings; a stored index's must be `load`ed first.
   */
  together(groups: readonly TermGroup[]): boolean {
    const dfOf = (g: TermGroup) => g.reduce((sum, id) => sum + this.df(id), 0);
    const order = [...groups].sort((a, b) => dfOf(a) - dfOf(b));
    let alive: Set<number> | undefined;
    for (const group of order) {
      const next = new Set<number>();
      for (const id of group) {
        if (this.df(id) === 0) continue;
        const { docs, from, to } = this.#postings(id);
        for (let j = from; j < to; j++) if (!alive || alive.has(docs[j]!)) next.add(docs[j]!);
      }
      if (next.size === 0) return false;
      alive = next;
    }
    return alive !== undefined;
  }

  /**
   * The `k` best chunks that `keep` accepts (ties by position), the query's `ceiling`:
   * the score of a chunk of average length holding every group's best term once (the sum
   * of their idf), and `most`, the sum of the idf of every term a chunk can score with.
   * A chunk scores the sum of a group's own terms (a word's stems in both languages,
   * as the bag of stems of a BM25 does: D-1042), or its best translation when that
   * scores more. `weights[g][a]` scales alternative `a` of group `g` (default 1); an
   * alternative weighing less is a translation (D-791). `lone` (1 per chunk whose source
   * has no twin, D-1123) makes a translation weigh `loneWeight` in those chunks; the
   * ceiling stays the twins' (the confidence reads it), `most` takes the larger. Costs the
   * postings of the query's terms, not the scope; those of a stored index must be `load`ed first.
   */
  search(
    groups: readonly TermGroup[],
    k: number,
    keep: (position: number) => boolean,
    weights?: readonly (readonly number[] | undefined)[],
    lone?: LoneChunks,
  ): { hits: LexicalHit[]; ceiling: number; most: number } {
    const total = this.#total;
    const best = this.#best;
    const own = this.#own;
    const touched = this.#touched;
    const matched = this.#matched;
    let matchedCount = 0;
    let ceiling = 0;
    let most = 0;
    for (let g = 0; g < groups.length; g++) {
      const group = groups[g]!;
      let touchedCount = 0;
      let groupCeiling = 0;
      let ownSum = 0;
      let translatedCeiling = 0;
      let translatedMost = 0;
      for (let a = 0; a < group.length; a++) {
        const id = group[a]!;
        if (this.df(id) === 0) continue;
        const { docs, body, from, to } = this.#postings(id);
        // An alternative weighing less (a translation, D-791) scores less, and sets the
        // ceiling only for a word none of whose own forms the scope uses.
        const weight = weights?.[g]?.[a] ?? 1;
        const idf = this.idf(id);
        const loneWeight = weight !== 1 && lone ? lone.weight : weight;
        if (weight === 1) {
          groupCeiling = Math.max(groupCeiling, idf);
          ownSum += idf;
        } else {
          translatedCeiling = Math.max(translatedCeiling, weight * idf);
          translatedMost = Math.max(translatedMost, loneWeight * idf);
        }
        for (let j = from; j < to; j++) {
          const d = docs[j]!;
          const tf = body[j]! / this.#bodyNorm[d]!;
          const s = ((lone?.chunks[d] ? loneWeight : weight) * idf * tf * (K1 + 1)) / (K1 + tf);
          if (best[d] === 0 && own[d] === 0) touched[touchedCount++] = d;
          if (weight === 1) own[d]! += s;
          else if (s > best[d]!) best[d] = s;
        }
      }
      ceiling += groupCeiling || translatedCeiling;
      most += Math.max(ownSum, translatedMost);
      for (let t = 0; t < touchedCount; t++) {
        const d = touched[t]!;
        if (total[d] === 0) matched[matchedCount++] = d;
        total[d]! += Math.max(own[d]!, best[d]!);
        best[d] = 0;
        own[d] = 0;
      }
    }
    // The best k, ties by position: the order chunks were met in does not matter.
    const top: number[] = [];
    const worse = (a: number, b: number) => total[a]! < total[b]! || (total[a] === total[b] && a > b);
    for (let m = 0; m < matchedCount; m++) {
      const d = matched[m]!;
      if (top.length === k && !worse(top[k - 1]!, d)) continue;
      if (!keep(d)) continue;
      let at = top.length;
      while (at > 0 && worse(top[at - 1]!, d)) at--;
      top.splice(at, 0, d);
      if (top.length > k) top.pop();
    }
    const hits = top.map((position) => ({ position, score: total[position]! }));
    for (let m = 0; m < matchedCount; m++) total[matched[m]!] = 0;
    return { hits, ceiling, most };
  }
}

/** BM25's length normalisation of one field per chunk, `1 - b + b * length / average`, from all the chunks' lengths. */
function norms(lengths: Uint32Array): Float32Array {
  const n = lengths.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += lengths[i]!;
  const average = Math.max(1e-9, sum / Math.max(1, n));
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = 1 - B + (B * lengths[i]!) / average;
  return out;
}

/** The block holding term `id`: the last whose first term is not past it. */
export function blockOf(firstTerms: Uint32Array, id: number): number {
  let lo = 0;
  let hi = firstTerms.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (firstTerms[mid]! <= id) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
