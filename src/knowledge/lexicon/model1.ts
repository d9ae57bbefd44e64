/*
 * IBM Model 1 (Brown et al. 1993) over aligned piece pairs, both directions, on stems
 * (decisions, D-788): a few rounds of expectation-maximisation estimate how likely each
 * Spanish stem translates each English one and back; a pair both directions agree on
 * (each is the other's most likely translation), seen together often enough, is kept.
 * Plain loops over typed arrays: the same input gives the same floats on every run.
 */

/** One aligned pair of pieces: the stems of each side (repeats kept). */
export interface UnitPair {
  en: readonly string[];
  es: readonly string[];
}

/** What each direction must give a pair that is only one word's best translation. */
const ONE_WAY_MIN_PROBABILITY = 0.2;

export interface WordPair {
  es: string;
  en: string;
  /** The geometric mean of the two directions' probabilities (0..1). */
  weight: number;
  /** In how many aligned pieces both occur. */
  together: number;
}

export interface Model1Options {
  /** Rounds of expectation-maximisation (default 5). */
  iterations?: number;
  /** A pair must occur together in at least this many pieces (default 2). */
  minTogether?: number;
  /** And each direction's probability at least this (default 0.05). */
  minProbability?: number;
  /** Stop adding pieces once their word pairs pass this (memory bound; default 8,000,000). */
  maxCells?: number;
}

class Vocabulary {
  readonly ids = new Map<string, number>();
  readonly words: string[] = [];
  id(word: string): number {
    let id = this.ids.get(word);
    if (id === undefined) {
      id = this.words.length;
      this.ids.set(word, id);
      this.words.push(word);
    }
    return id;
  }
}

/** Word pairs met together, each with an id (in the order first met), in flat arrays: an open-addressing table of (English id, Spanish id). */
class PairTable {
  size = 0;
  e = new Uint32Array(1024);
  f = new Uint32Array(1024);
  together = new Uint32Array(1024);
  #slots = new Int32Array(4096).fill(-1);

  id(e: number, f: number): number {
    let mask = this.#slots.length - 1;
    let at = hash(e, f) & mask;
    for (;;) {
      const id = this.#slots[at]!;
      if (id < 0) break;
      if (this.e[id] === e && this.f[id] === f) {
        this.together[id]! += 1;
        return id;
      }
      at = (at + 1) & mask;
    }
    const id = this.size++;
    if (id === this.e.length) {
      this.e = grow(this.e);
      this.f = grow(this.f);
      this.together = grow(this.together);
    }
    this.e[id] = e;
    this.f[id] = f;
    this.together[id] = 1;
    this.#slots[at] = id;
    if (this.size * 2 > this.#slots.length) {
      // Half full: twice the slots, every pair placed again.
      this.#slots = new Int32Array(this.#slots.length * 2).fill(-1);
      mask = this.#slots.length - 1;
      for (let k = 0; k < this.size; k++) {
        let slot = hash(this.e[k]!, this.f[k]!) & mask;
        while (this.#slots[slot]! >= 0) slot = (slot + 1) & mask;
        this.#slots[slot] = k;
      }
    }
    return id;
  }
}

function hash(e: number, f: number): number {
  return (Math.imul(e, 0x9e3779b1) ^ Math.imul(f + 0x7f4a7c15, 0x85ebca6b)) >>> 0;
}

function grow(a: Uint32Array): Uint32Array<ArrayBuffer> {
  const out = new Uint32Array(a.length * 2);
  out.set(a);
  return out;
}

interface Unit {
  e: Uint32Array;
  ec: Float64Array;
  f: Uint32Array;
  fc: Float64Array;
  /** Pair ids, row-major: `pairs[i * f.length + j]` is (e[i], f[j]). */
  pairs: Uint32Array;
}

function counted(words: readonly string[], vocabulary: Vocabulary): { ids: Uint32Array; counts: Float64Array } {
  const counts = new Map<number, number>();
  for (const w of words) {
    const id = vocabulary.id(w);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  // In id order, so that sums run in the same order whatever the word order.
  const ids = [...counts.keys()].sort((x, y) => x - y);
  return { ids: Uint32Array.from(ids), counts: Float64Array.from(ids.map((id) => counts.get(id)!)) };
}

/**
 * Trains Model 1 both ways on `units` and answers the pairs both directions agree on,
 * Spanish stem first, sorted by Spanish then English stem. Identical stems (`apt`,
 * `kernel`) take part in training (they explain each other away) but are not answered.
 */
export function learnWordPairs(units: readonly UnitPair[], options: Model1Options = {}): WordPair[] {
  const iterations = options.iterations ?? 5;
  const minTogether = options.minTogether ?? 2;
  const minProbability = options.minProbability ?? 0.05;
  const maxCells = options.maxCells ?? 8_000_000;
  const en = new Vocabulary();
  const es = new Vocabulary();
  const pairs = new PairTable();
  const list: Unit[] = [];
  let cells = 0;
  for (const unit of units) {
    if (unit.en.length === 0 || unit.es.length === 0) continue;
    const e = counted(unit.en, en);
    const f = counted(unit.es, es);
    const size = e.ids.length * f.ids.length;
    if (cells + size > maxCells) break;
    cells += size;
    const ids = new Uint32Array(size);
    for (let i = 0; i < e.ids.length; i++) for (let j = 0; j < f.ids.length; j++) ids[i * f.ids.length + j] = pairs.id(e.ids[i]!, f.ids[j]!);
    list.push({ e: e.ids, ec: e.counts, f: f.ids, fc: f.counts, pairs: ids });
  }
  const { size: nPairs, e: pairE, f: pairF, together } = pairs;
  if (nPairs === 0) return [];
  // t(f|e): Spanish given English; t(e|f): English given Spanish. Each with a null word.
  const fGivenE = train(list, nPairs, pairE, en.words.length, es.words.length, iterations, 'f');
  const eGivenF = train(list, nPairs, pairF, es.words.length, en.words.length, iterations, 'e');

  // Each word's most likely translation, per direction (ties to the smaller id).
  const bestFofE = new Int32Array(en.words.length).fill(-1);
  const bestEofF = new Int32Array(es.words.length).fill(-1);
  for (let p = 0; p < nPairs; p++) {
    const e = pairE[p]!;
    const f = pairF[p]!;
    const b = bestFofE[e]!;
    if (b < 0 || fGivenE[p]! > fGivenE[b]! || (fGivenE[p] === fGivenE[b] && f < pairF[b]!)) bestFofE[e] = p;
    const c = bestEofF[f]!;
    if (c < 0 || eGivenF[p]! > eGivenF[c]! || (eGivenF[p] === eGivenF[c] && e < pairE[c]!)) bestEofF[f] = p;
  }
  const out: WordPair[] = [];
  for (let p = 0; p < nPairs; p++) {
    const mutual = bestFofE[pairE[p]!] === p && bestEofF[pairF[p]!] === p;
    const one = bestFofE[pairE[p]!] === p || bestEofF[pairF[p]!] === p;
    if (!one || together[p]! < minTogether) continue;
    // A word's best translation that is not the other's best (`arranque` and `arrancar`
    // both for `boot`) needs both directions to agree more.
    const floor = mutual ? minProbability : ONE_WAY_MIN_PROBABILITY;
    if (fGivenE[p]! < floor || eGivenF[p]! < floor) continue;
    const enWord = en.words[pairE[p]!]!;
    const esWord = es.words[pairF[p]!]!;
    if (enWord === esWord) continue;
    out.push({ es: esWord, en: enWord, weight: Math.sqrt(fGivenE[p]! * eGivenF[p]!), together: together[p]! });
  }
  return out.sort((x, y) => (x.es < y.es ? -1 : x.es > y.es ? 1 : x.en < y.en ? -1 : x.en > y.en ? 1 : 0));
}

/**
 * Model 1's table for one direction: `t[p]` is the probability of the generated side's
 * word of pair `p` given its source side's word (`source[p]`). `generated` says which
 * side of each unit is generated ('f': Spanish from English).
 */
function train(units: readonly Unit[], nPairs: number, source: Uint32Array, nSource: number, nGenerated: number, iterations: number, generated: 'e' | 'f'): Float64Array {
  const t = new Float64Array(nPairs).fill(1);
  // The null word generates any word with one shared distribution per generated word.
  const tNull = new Float64Array(nGenerated).fill(1);
  const count = new Float64Array(nPairs);
  const countNull = new Float64Array(nGenerated);
  const total = new Float64Array(nSource);
  // Per unit, its pair ids laid out generated word by generated word.
  const layouts = units.map((u) => {
    if (generated === 'e') return { gen: u.e, genCounts: u.ec, srcCounts: u.fc, pairs: u.pairs };
    const width = u.f.length;
    const height = u.e.length;
    const pairs = new Uint32Array(u.pairs.length);
    for (let g = 0; g < width; g++) for (let s = 0; s < height; s++) pairs[g * height + s] = u.pairs[s * width + g]!;
    return { gen: u.f, genCounts: u.fc, srcCounts: u.ec, pairs };
  });
  for (let round = 0; round < iterations; round++) {
    count.fill(0);
    countNull.fill(0);
    for (const { gen, genCounts, srcCounts, pairs } of layouts) {
      const n = srcCounts.length;
      for (let g = 0, row = 0; g < gen.length; g++, row += n) {
        const word = gen[g]!;
        let denominator = tNull[word]!;
        for (let s = 0; s < n; s++) denominator += srcCounts[s]! * t[pairs[row + s]!]!;
        const share = genCounts[g]! / denominator;
        countNull[word]! += share * tNull[word]!;
        for (let s = 0; s < n; s++) {
          const p = pairs[row + s]!;
          count[p]! += share * srcCounts[s]! * t[p]!;
        }
      }
    }
    total.fill(0);
    for (let p = 0; p < nPairs; p++) total[source[p]!]! += count[p]!;
    for (let p = 0; p < nPairs; p++) t[p] = total[source[p]!]! > 0 ? count[p]! / total[source[p]!]! : 0;
    let nullTotal = 0;
    for (let w = 0; w < nGenerated; w++) nullTotal += countNull[w]!;
    for (let w = 0; w < nGenerated; w++) tNull[w] = nullTotal > 0 ? countNull[w]! / nullTotal : 0;
  }
  return t;
}
