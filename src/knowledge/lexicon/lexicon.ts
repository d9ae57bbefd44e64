import type { Language } from '../../text/language.js';
import type { LearnedLexicon } from './learn.js';

/**
 * A workspace's bilingual lexicon as retrieval reads it (decisions, D-785): Snowball
 * stems of one language to the stems of the other that its own translations pair them
 * with, each with a weight (0..1). Learned at ingestion from the workspace's twin
 * documents (`learnLexicon`), stored as it was learned.
 */
export class Lexicon {
  readonly #toEnglish = new Map<string, [string, number][]>();
  readonly #toSpanish = new Map<string, [string, number][]>();
  /**
   * The content hash of each source found to have a twin, to its twins' (D-1124); undefined
   * for a lexicon learned before D-1123. One learned between D-1123 and D-1124 names no
   * partners: each of its twinned sources is its own twin, wherever it is searched.
   */
  readonly twins: ReadonlyMap<string, readonly string[]> | undefined;

  constructor(readonly learned: LearnedLexicon) {
    for (const [es, en, weight] of learned.pairs) {
      add(this.#toEnglish, es, en, weight);
      add(this.#toSpanish, en, es, weight);
    }
    this.twins = twinMap(learned);
  }

  /** How many pairs it holds. */
  get size(): number {
    return this.learned.pairs.length;
  }

  /** The stems of `to` that stem `stem` (a stem of the other language) translates to, strongest first. */
  translate(stem: string, to: Language): readonly [string, number][] {
    return (to === 'en' ? this.#toEnglish : this.#toSpanish).get(stem) ?? [];
  }

  /** As stored: JSON, pairs in their learned order (the same lexicon is the same text). */
  serialize(): string {
    return JSON.stringify(this.learned);
  }
}

function twinMap(learned: LearnedLexicon): Map<string, string[]> | undefined {
  const pairs = learned.twinPairs ?? learned.twinned?.map((key): [string, string] => [key, key]);
  if (!pairs) return undefined;
  const map = new Map<string, string[]>();
  for (const [a, b] of pairs) {
    append(map, a, b);
    if (b !== a) append(map, b, a);
  }
  return map;
}

function append(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function add(map: Map<string, [string, number][]>, from: string, to: string, weight: number): void {
  let list = map.get(from);
  if (!list) {
    list = [];
    map.set(from, list);
  }
  list.push([to, weight]);
  list.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}
