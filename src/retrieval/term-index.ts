/**
 * Which chunks hold which term, as compressed rows: the positions holding term `id` are
 * `postings[offsets[id]] .. postings[offsets[id + 1] - 1]`, ascending. A hundred
 * thousand chunks make millions of entries; typed arrays keep them compact and off the
 * garbage collector's back.
 *
 * Term ids come from a dictionary that only grows and is shared by the successive
 * indexes of a scope, so a rebuild after a small change of knowledge copies the ids of
 * every unchanged chunk instead of reading its text again.
 */
export class TermIndex {
  private constructor(
    readonly dictionary: Map<string, number>,
    /** Ids below this are described by this index (the dictionary may have grown since). */
    private readonly terms: number,
    private readonly offsets: Uint32Array,
    private readonly postings: Uint32Array,
    private readonly size: number,
  ) {}

  /**
   * Indexes `size` chunks: chunk `i` holds `termsOf(i)`, unless `reuse` maps it to a
   * chunk of an earlier index with the same terms.
   */
  static build(
    size: number,
    termsOf: (i: number) => Iterable<string>,
    reuse?: { from: TermIndex; position: (i: number) => number | undefined },
  ): TermIndex {
    const dictionary = reuse?.from.dictionary ?? new Map<string, number>();
    const earlier = reuse ? reuse.from.#byChunk() : undefined;
    // Pass 1: each chunk's term ids, end to end, and how many chunks hold each term.
    let flat = new Uint32Array(size * 64 + 16);
    let used = 0;
    const starts = new Uint32Array(size + 1);
    let counts = new Uint32Array(Math.max(1024, dictionary.size));
    const add = (id: number) => {
      if (id >= counts.length) counts = grow(counts, id + 1);
      counts[id]! += 1;
      if (used === flat.length) flat = grow(flat, used + 1);
      flat[used++] = id;
    };
    for (let i = 0; i < size; i++) {
      starts[i] = used;
      const j = reuse?.position(i);
      if (earlier && j !== undefined) {
        for (let k = earlier.starts[j]!; k < earlier.starts[j + 1]!; k++) add(earlier.flat[k]!);
        continue;
      }
      for (const term of termsOf(i)) {
        let id = dictionary.get(term);
        if (id === undefined) dictionary.set(term, (id = dictionary.size));
        add(id);
      }
    }
    starts[size] = used;
    // Pass 2: prefix sums, then every chunk position into its terms' rows, in order.
    const terms = dictionary.size;
    const offsets = new Uint32Array(terms + 1);
    for (let id = 0; id < terms; id++) offsets[id + 1] = offsets[id]! + (counts[id] ?? 0);
    const cursor = offsets.slice(0, terms);
    const postings = new Uint32Array(used);
    for (let i = 0; i < size; i++) for (let k = starts[i]!; k < starts[i + 1]!; k++) postings[cursor[flat[k]!]!++] = i;
    return new TermIndex(dictionary, terms, offsets, postings, size);
  }

  #id(term: string): number | undefined {
    const id = this.dictionary.get(term);
    return id !== undefined && id < this.terms ? id : undefined;
  }

  /** In how many chunks a term occurs. */
  df(term: string): number {
    const id = this.#id(term);
    return id === undefined ? 0 : this.offsets[id + 1]! - this.offsets[id]!;
  }

  /** Whether the chunk at `position` holds `term`. */
  has(term: string, position: number): boolean {
    const id = this.#id(term);
    if (id === undefined) return false;
    let lo = this.offsets[id]!;
    let hi = this.offsets[id + 1]! - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.postings[mid]!;
      if (v === position) return true;
      if (v < position) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  /** The same entries chunk by chunk (the inverse of the rows), for a rebuild to copy. */
  #byChunk(): { starts: Uint32Array; flat: Uint32Array } {
    const starts = new Uint32Array(this.size + 1);
    for (let k = 0; k < this.postings.length; k++) starts[this.postings[k]! + 1]! += 1;
    for (let i = 0; i < this.size; i++) starts[i + 1]! += starts[i]!;
    const cursor = starts.slice(0, this.size);
    const flat = new Uint32Array(this.postings.length);
    for (let id = 0; id < this.terms; id++) {
      for (let k = this.offsets[id]!; k < this.offsets[id + 1]!; k++) flat[cursor[this.postings[k]!]!++] = id;
    }
    return { starts, flat };
  }
}

/** A copy of `array` with room for at least `needed` values (doubling). */
function grow(array: Uint32Array<ArrayBuffer>, needed: number): Uint32Array<ArrayBuffer> {
  const out = new Uint32Array(Math.max(needed, array.length * 2));
  out.set(array);
  return out;
}
