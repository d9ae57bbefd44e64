import type { Language } from '../../text/language.js';
import { alignSegments, fit, type Bead } from './align.js';
import { learnWordPairs, type UnitPair, type WordPair } from './model1.js';
import { documentFeatures, documentText, group, languageOf, sections, segment, stemsOf, type DocumentFeatures, type Segment } from './segments.js';
import { findTwins } from './twins.js';

/*
 * A bilingual lexicon learned from the workspace's own translations (decisions, D-785 to
 * D-789): find the documents that translate each other, align their sections, blocks
 * and sentences, and learn word pairs from the aligned pieces with IBM Model 1. A pure
 * function of the documents' content: the same documents give the same lexicon, byte
 * for byte, whatever their ids or the order they came in.
 */

/** A ready source as the lexicon reads it. */
export interface LexiconSource {
  /** Its chunks' text, in order. */
  chunks: readonly string[];
  /** File name, URL: names that may be the same in both languages. */
  names: readonly string[];
  /** The source's own language (a tie-break only: the text decides). */
  lang: Language;
  /** A bilingual claim: its two texts are twins by construction. */
  claim?: { es: string; en: string } | undefined;
  /** What names it in `twinPairs` (its content hash: no id, so the same content learns the same lexicon). */
  key?: string | undefined;
}

/** What was learned, and from how much. */
export interface LearnedLexicon {
  /** Spanish stem, English stem, weight (0..1), sorted by Spanish then English stem. */
  pairs: [es: string, en: string, weight: number][];
  /** Twin documents found (claims included). */
  twins: number;
  /** Aligned pieces Model 1 learned from. */
  units: number;
  /**
   * The keys of the sources found to have a twin, sorted (D-1123): written between D-1123
   * and D-1124 only, read as `twinPairs` of each key with itself.
   */
  twinned?: string[];
  /**
   * The twins found, as pairs of keys (each pair and the list sorted; a bilingual claim is
   * paired with itself): a source with no twin in the scope a query searches holds its text
   * there in one language only, which the query's expansion step weighs its translations by
   * (D-1123, D-1124). Absent in a lexicon learned before D-1124.
   */
  twinPairs?: [string, string][];
}

/** At most this many pairs, the strongest first (a memory and storage bound). */
export const MAX_PAIRS = 20_000;
/** A piece pair that fits worse than this is not learned from. */
const MIN_FIT = -1;

interface Doc extends DocumentFeatures {
  names: readonly string[];
  text: string;
  key: string | undefined;
}

/**
 * The lexicon of `sources`: nothing (no pairs) when they hold one language only or no
 * twins. Deterministic: sources are taken in the order of their content, not as given.
 */
export function learnLexicon(sources: readonly LexiconSource[]): LearnedLexicon {
  const units: UnitPair[] = [];
  let twins = 0;
  const docs: Doc[] = [];
  const twinPairs = new Map<string, [string, string]>();
  const pairUp = (a: string | undefined, b: string | undefined) => {
    if (a === undefined || b === undefined) return;
    const pair: [string, string] = a < b ? [a, b] : [b, a];
    twinPairs.set(pair.join(' '), pair);
  };
  for (const source of sources) {
    if (source.claim) {
      const pair = unitPair(segment(source.claim.en), segment(source.claim.es));
      if (pair) units.push(pair);
      twins += 1;
      pairUp(source.key, source.key);
      continue;
    }
    const text = documentText(source.chunks);
    if (text) docs.push({ ...documentFeatures(text, source.lang), names: source.names, text, key: source.key });
  }
  // Content order, not arrival order: ids and timing must not move a bit of the result.
  docs.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : a.names.join('\n') < b.names.join('\n') ? -1 : 1));
  units.sort(compareUnits);
  if (docs.some((d) => d.lang === 'en') && docs.some((d) => d.lang === 'es')) {
    const found = findTwins(docs);
    twins += found.length;
    for (const [e, s] of found) {
      units.push(...alignDocuments(docs[e]!, docs[s]!));
      pairUp(docs[e]!.key, docs[s]!.key);
    }
  }
  const pairs = learnWordPairs(units)
    .filter(usable)
    .sort((a, b) => b.weight - a.weight || (a.es < b.es ? -1 : a.es > b.es ? 1 : a.en < b.en ? -1 : 1))
    .slice(0, MAX_PAIRS)
    .sort((a, b) => (a.es < b.es ? -1 : a.es > b.es ? 1 : a.en < b.en ? -1 : 1));
  return {
    pairs: pairs.map((p) => [p.es, p.en, Math.round(p.weight * 1000) / 1000]),
    twins,
    units: units.length,
    twinPairs: [...twinPairs.values()].sort(comparePairs),
  };
}

/** Numbers and one-letter stems translate themselves or nothing. */
function usable(pair: WordPair): boolean {
  return pair.es.length > 1 && pair.en.length > 1 && !/^\d+$/.test(pair.es) && !/^\d+$/.test(pair.en);
}

function comparePairs(a: [string, string], b: [string, string]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

function compareUnits(a: UnitPair, b: UnitPair): number {
  const x = `${a.en.join(' ')}\n${a.es.join(' ')}`;
  const y = `${b.en.join(' ')}\n${b.es.join(' ')}`;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** An aligned piece pair as stems, when each side is written in its own language. */
function unitPair(en: Segment, es: Segment): UnitPair | undefined {
  if (languageOf(en, 'en') !== 'en' || languageOf(es, 'es') !== 'es') return undefined;
  const pair = { en: stemsOf(en, 'en'), es: stemsOf(es, 'es') };
  return pair.en.length && pair.es.length ? pair : undefined;
}

/**
 * The aligned pieces of two twin documents: sections in order, within aligned sections
 * their blocks, within aligned blocks their sentences; the finest level that aligns one
 * to one is what is learned from (a piece whose parts do not align is learned from whole).
 */
function alignDocuments(en: Doc, es: Doc): UnitPair[] {
  const ratio = Math.log((es.length + 1) / (en.length + 1));
  const out: UnitPair[] = [];
  const descend = (a: Segment, b: Segment): void => {
    if (a.children.length && b.children.length) {
      const beads = alignSegments(a.children, b.children, ratio);
      if (beads?.every((bead) => good(bead, a.children, b.children, ratio) || skipped(bead))) {
        for (const bead of beads) {
          if (skipped(bead)) continue;
          if (bead.a1 - bead.a0 === 1 && bead.b1 - bead.b0 === 1) descend(a.children[bead.a0]!, b.children[bead.b0]!);
          else emit(join(a.children.slice(bead.a0, bead.a1)), join(b.children.slice(bead.b0, bead.b1)));
        }
        return;
      }
    }
    emit(a, b);
  };
  const emit = (a: Segment, b: Segment) => {
    if (fit(a, b, ratio) < MIN_FIT) return;
    const pair = unitPair(a, b);
    if (pair) out.push(pair);
  };
  descend(group(sections(en.text)), group(sections(es.text)));
  return out;
}

function skipped(bead: Bead): boolean {
  return bead.a0 === bead.a1 || bead.b0 === bead.b1;
}

function good(bead: Bead, a: readonly Segment[], b: readonly Segment[], ratio: number): boolean {
  if (skipped(bead)) return false;
  return fit(join(a.slice(bead.a0, bead.a1)), join(b.slice(bead.b0, bead.b1)), ratio) >= MIN_FIT;
}

function join(list: readonly Segment[]): Segment {
  return list.length === 1 ? list[0]! : group([...list]);
}
