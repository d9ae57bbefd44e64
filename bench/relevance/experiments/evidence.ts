/**
 * Evidence features for knowing when the knowledge does not answer a question (issue 14,
 * CONFIDENCE.md): each is cheap at query time over what the index already holds (the
 * query's groups, their idf, the top chunks' scores and terms) and says something a
 * reader could check by hand.
 */
import { fold, langBalance, queryWords, stem } from './analyze.js';
import type { LexicalRetriever } from './lexical.js';

/** One content word of the question as the index sees it. */
export interface WordEvidence {
  word: string;
  known: boolean;
  /** Its weight: the best idf of its stems, or the idf of an unseen term. */
  idf: number;
  /** Written as a name: a capital inside the word or after the first word, a digit. */
  nameLike: boolean;
  /** Neither language's stemmer changes it (no ending either language knows). */
  bare: boolean;
}

export interface Evidence {
  words: WordEvidence[];
  positions: number[];
  scores: number[];
  ceiling: number;
  unseenIdf: number;
  vocabulary: number;
  /** For each of the top chunks, which words (indexes into `words`) it holds. */
  holds: Set<number>[];
  sources: string[];
  /** The question's `langBalance` (positive: Spanish). */
  balance: number;
}

/** The score's weight against the share of known words: the tuning half's logistic fit of the two (1.694 + 0.816 over 8.164). */
export const SCORE_WEIGHT = 0.3;

const TOKEN = /[\p{L}\p{N}]+/gu;

/**
 * The question's words as written, lowercased form to its original spelling: whether it
 * is written as a name (Kubernetes, WireGuard, CUDA, iPhone, Node.js 20) is lost once
 * lowercased. The first word of a sentence is capitalised by grammar, not as a name.
 */
export function spellings(query: string): Map<string, { name: boolean }> {
  const out = new Map<string, { name: boolean }>();
  let sentenceStart = true;
  for (const m of query.normalize('NFC').matchAll(TOKEN)) {
    const w = m[0];
    const before = query.slice(Math.max(0, (m.index ?? 0) - 2), m.index);
    if (/[.?!¿¡]\s*$/.test(before)) sentenceStart = true;
    const inner = /\p{Lu}/u.test(w.slice(1));
    const capital = /^\p{Lu}/u.test(w);
    const digit = /\d/.test(w);
    const name = inner || digit || (capital && !sentenceStart);
    const key = w.toLowerCase();
    const prev = out.get(key);
    out.set(key, { name: (prev?.name ?? false) || name });
    sentenceStart = false;
  }
  return out;
}

export function evidenceOf(lex: LexicalRetriever, query: string, k: number, terms: Set<string>[]): Evidence {
  const qw = queryWords(query);
  const spelled = spellings(query);
  const index = lex.index;
  const unseenIdf = Math.log(1 + (index.size + 0.5) / 0.5);
  const groups = lex.groups(query);
  const words: WordEvidence[] = qw.map(({ word, stems }, i) => {
    const alts = groups[i]!;
    const known = alts.length > 0;
    const idf = known ? Math.max(...alts.map((a) => index.idf(a.term))) : unseenIdf;
    const f = fold(word);
    const bare = stem(word, 'en') === f && stem(word, 'es') === f && stems.length === 1;
    return { word, known, idf, nameLike: spelled.get(word)?.name ?? false, bare };
  });
  const { hits, ceiling } = index.search(groups, k);
  const holds = hits.map((h) => {
    const t = terms[h.position]!;
    const set = new Set<number>();
    groups.forEach((g, i) => {
      if (g.some((a) => t.has(a.term))) set.add(i);
    });
    return set;
  });
  return {
    words,
    positions: hits.map((h) => h.position),
    scores: hits.map((h) => h.score),
    ceiling,
    unseenIdf,
    vocabulary: index.vocabularySize,
    holds,
    sources: hits.map((h) => lex.chunks[h.position]!.sourceId),
    balance: langBalance(query),
  };
}

/** Every chunk's distinct terms (both fields), for `holds`. */
export function chunkTerms(lex: LexicalRetriever): Set<string>[] {
  return lex.analysed.map((a) => new Set([...a.head, ...a.body]));
}

/** The features, each oriented so that higher means "more likely answerable". */
export function features(e: Evidence): Record<string, number> {
  const n = Math.max(1, e.words.length);
  const unknown = e.words.filter((w) => !w.known);
  const mass = e.words.reduce((s, w) => s + w.idf, 0) || 1;
  const massKnown = e.words.filter((w) => w.known).reduce((s, w) => s + w.idf, 0);
  const covered = (sets: Set<number>[]) => {
    const u = new Set<number>();
    for (const s of sets) for (const i of s) u.add(i);
    return e.words.reduce((s, w, i) => s + (u.has(i) ? w.idf : 0), 0);
  };
  const best = e.scores[0] ?? 0;
  const rarest = e.words.reduce((r, w, i) => (r < 0 || w.idf > e.words[r]!.idf ? i : r), -1);
  const rarestKnown = e.words.reduce((r, w, i) => (w.known && (r < 0 || w.idf > e.words[r]!.idf) ? i : r), -1);
  const top3 = e.holds.slice(0, 3);
  const names = unknown.filter((w) => w.nameLike).length;
  const bare = unknown.filter((w) => !w.nameLike && w.bare).length;
  const ordinary = unknown.length - names - bare;
  const richness = Math.min(1, e.vocabulary / 5000);
  const s5 = e.scores[Math.min(4, e.scores.length - 1)] ?? 0;
  return {
    knownShare: 1 - unknown.length / n,
    knownMass: massKnown / mass,
    noName: names === 0 ? 1 : 0,
    nameShare: -names / n,
    bareShare: -bare / n,
    ordinaryShare: -ordinary / n,
    weightedUnknown: -(names + 0.5 * bare + richness * 0.25 * ordinary) / n,
    score: best / Math.max(1e-9, e.ceiling),
    scoreU: best / Math.max(1e-9, e.ceiling + unknown.length * e.unseenIdf),
    cover1: covered(e.holds.slice(0, 1)) / mass,
    cover3: covered(top3) / mass,
    cover1Known: massKnown ? covered(e.holds.slice(0, 1)) / massKnown : 0,
    rarestIn3: rarest >= 0 && top3.some((s) => s.has(rarest)) ? 1 : 0,
    rarestKnownIn1: rarestKnown >= 0 && (e.holds[0]?.has(rarestKnown) ?? false) ? 1 : 0,
    gap: best > 0 ? (best - s5) / best : 0,
    agree: e.sources.length ? e.sources.slice(0, 5).filter((s) => s === e.sources[0]).length / Math.min(5, e.sources.length) : 0,
    words: -n,
    richness,
    // The second-round detector (CONFIDENCE.md) with verb forms counting nothing; the chosen one, below, counts them half.
    chosen: (() => {
      const k = unknownKinds(e);
      const scoreU = best / Math.max(1e-9, e.ceiling + unknown.length * e.unseenIdf);
      return 1 - (k.names + k.subjects) / n + SCORE_WEIGHT * scoreU;
    })(),
    'chosen, verbs half': (() => {
      const k = unknownKinds(e);
      const scoreU = best / Math.max(1e-9, e.ceiling + unknown.length * e.unseenIdf);
      return 1 - (k.names + k.subjects + 0.5 * k.verbs) / n + SCORE_WEIGHT * scoreU;
    })(),
    ...Object.fromEntries(
      (
        [
          [0, 1],
          [0.5, 1],
          [0, 2],
          [0, 4],
          [0.5, 2],
          [1, 1],
          [1, 4],
          [0, 100],
        ] as const
      ).map(([v, m]) => [`kw v${v} n${m}`, knownEvidence(e, { verbWeight: v, nameWeight: m }).known]),
    ),
  };
}

/**
 * Inflected verb and adjective forms, by endings of verbs and adjectives: an unknown
 * word in such a form says how the user puts the action ("eating my disk space",
 * "flooding my console", "sin arriesgar"), not what the question is about. English
 * `-ing`, `-ed`, `-ous`; Spanish infinitives (also with a pronoun: `leerlo`), gerunds,
 * participles, the preterite's accented endings, `-aba`. `-ly` and `-ía` were dropped
 * (family, batería: nouns), with no change on any set.
 */
const VERB_EN = /(?:ing|ed|ous)$/u;
const VERB_ES = /(?:[aei]r(?:lo|la|los|las|se|me|te)?|ando|iendo|ad[oa]s?|id[oa]s?|[óé]|aba)$/u;

export function verbForm(word: string, balance = 0): boolean {
  const f = fold(word);
  // The ending must be one the stemmer takes off: "speed" and "mil" are no verb forms.
  // And one of the question's language (`balance`: `langBalance` of the question; 0 when
  // it cannot tell): "wallpaper" or "server" in an English question is no infinitive.
  return (balance <= 0 && VERB_EN.test(word) && stem(word, 'en') !== f) || (balance >= 0 && VERB_ES.test(word) && stem(word, 'es') !== f);
}

/**
 * The detector's parts: `names`: unknown words written as names; `subjects`: other
 * unknown words, not in a verb or adjective form; `verbs`: unknown words in such a form.
 */
export function unknownKinds(e: Evidence): { names: number; subjects: number; verbs: number } {
  const unknown = e.words.filter((w) => !w.known);
  const names = unknown.filter((w) => w.nameLike).length;
  const verbs = unknown.filter((w) => !w.nameLike && verbForm(w.word, e.balance)).length;
  return { names, subjects: unknown.length - names - verbs, verbs };
}

export interface DetectorOptions {
  /** What an unknown verb form counts, against 1 for a subject word. */
  verbWeight: number;
  /** What an unknown name counts. */
  nameWeight: number;
}

/**
 * The second-round detector: as DESIGN.md's `blend`, but unknown words weigh by what
 * they are. `known` is one minus the weighted unknown share plus a tenth of the score.
 */
export function knownEvidence(e: Evidence, o: DetectorOptions): { known: number; score: number; richness: number } {
  const { names, subjects, verbs } = unknownKinds(e);
  const n = Math.max(1, e.words.length);
  const richness = Math.min(1, e.vocabulary / 5000);
  const unknown = names + subjects + verbs;
  const score = (e.scores[0] ?? 0) / Math.max(1e-9, e.ceiling + unknown * e.unseenIdf);
  const weighted = o.nameWeight * names + subjects + o.verbWeight * verbs;
  return { known: 1 - weighted / n + score / 10, score, richness };
}
