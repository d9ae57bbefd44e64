import { snowballStem } from '../text/analyze.js';
import { COMMON_EN, COMMON_ES } from '../text/common-words.js';
import { fold } from '../text/words.js';

/*
 * Knowing when it does not know (decisions, D-303, D-700, D-710, D-763): two detectors,
 * weighed by how rich the knowledge's vocabulary is. Refusing costs an answerable
 * question its answer, so answering is the default: the threshold is set by how few
 * answerable questions it may refuse (bench/relevance/README.md), and the no-answer
 * questions it refuses are what that allows.
 */

/**
 * The `known` detector's threshold (D-763): the highest at which no answerable question
 * whose answer the ranking finds is refused, on any corpus measured. A refused question
 * is a miss, so a refusal that costs a found answer puts `/query` behind the ranking it
 * refuses from; only questions the ranking fails anyway may be refused. It refuses 31%
 * of the development set's no-answer questions, 25% of the handbook's, 14% of the
 * installation guide's (bench/relevance/README.md).
 */
const KNOWN_THRESHOLD = 0.83;
/**
 * What the best chunk's score counts against the share of known words: the tuning
 * half's logistic fit of the two (D-700). With the threshold under 1, a question all of
 * whose subject words the scope uses is never refused by this detector.
 */
const SCORE_WEIGHT = 0.3;
/** The `score` detector's: the best chunk holds under 5% of the question's weight (the classic no-match rule, not tuned). */
const SCORE_THRESHOLD = 0.05;
/**
 * A knowledge base using this many distinct terms has met the ordinary words of its
 * field, so a question word it never uses is telling. A smaller one (a hotel's 24 pages,
 * about 500 terms) has not met most ordinary words ("dog", "noon"), and there the vote
 * shifts to the best chunk's score. Any value from about 1,000 to 6,500 gave the same
 * figures on the three sets measured.
 */
const RICH_VOCABULARY = 5_000;

// Endings of inflected verbs and adjectives (English -ing, -ed, -ous; Spanish
// infinitives, also with a pronoun, gerunds, participles, the preterite's accented
// endings, -aba). Some nouns end so too (ceiling, teclado, alquiler): hence an
// inflected form weighs half, not nothing. Endings shared with many nouns (-ly:
// family, supply; -ía: batería, tecnología) are left out. Anchored alternations:
// linear on any input.
const VERB_EN = /(?:ing|ed|ous)$/u;
const VERB_ES = /(?:[aei]r(?:lo|la|los|las|se|me|te)?|ando|iendo|ad[oa]s?|id[oa]s?|[óé]|aba)$/u;
/** What an unknown inflected form counts against the evidence, where any other unknown word counts 1. */
const INFLECTED_WEIGHT = 0.5;

/**
 * True for a lowercase word in an inflected verb or adjective form: the ending is one
 * of those, of the question's language (`balance`: `languageBalance` of the question,
 * positive for Spanish, 0 when it cannot tell), and the stemmer of that language takes
 * something off ("speed" and "mil" are not; "wallpaper" or "server" in an English
 * question is no Spanish infinitive). Such a word says how the user puts the action
 * ("eating my disk space", "flooding my console", "sin arriesgar"), not what the
 * question is about: the knowledge saying it in other words is no sign that it lacks
 * the subject.
 */
export function isInflectedForm(word: string, balance = 0): boolean {
  const folded = fold(word);
  return (
    (balance <= 0 && VERB_EN.test(word) && snowballStem(word, 'en') !== folded) ||
    (balance >= 0 && VERB_ES.test(word) && snowballStem(word, 'es') !== folded)
  );
}

const EVERYDAY_EN: ReadonlySet<string> = new Set(COMMON_EN);
const EVERYDAY_ES: ReadonlySet<string> = new Set(COMMON_ES);
/** What an unknown everyday word counts against the evidence (D-710): nothing. */
const EVERYDAY_WEIGHT = 0;

/**
 * True for a word among the 500 most frequent of spoken English or Spanish (of the
 * question's language, `balance` as for `isInflectedForm`): "soon", "office", "room",
 * "semana", "veo". Such a word is how a person talks ("as soon as the installer
 * starts", "each week"); a knowledge base that never says it is no sign it lacks the
 * subject, which is a rarer word ("brightness", "kubernetes"). `word` is lowercase with
 * its accents (`accentedWords`).
 */
export function isEverydayWord(word: string, balance = 0): boolean {
  return (balance <= 0 && EVERYDAY_EN.has(word)) || (balance >= 0 && EVERYDAY_ES.has(word));
}

export interface Evidence {
  /** The best eligible chunk's BM25 score (0 when none matched). */
  best: number;
  /** The query's ceiling: the score of an average chunk holding every known word once. */
  ceiling: number;
  /** The question's subject words (`questionTerms`), and how many of them the scope never uses. */
  words: number;
  unknown: number;
  /** Of the unknown words, those in an inflected verb or adjective form (`isInflectedForm`). */
  inflected: number;
  /** Of the other unknown words, the everyday ones (`isEverydayWord`). */
  everyday: number;
  /** The idf a word the scope never uses would have. */
  unseenIdf: number;
  /** Distinct terms the scope uses. */
  vocabulary: number;
}

/**
 * How sure retrieval is that it found something; below 0 it returns no passages.
 * `score` is the best chunk's score over the ceiling, each unknown word counting with
 * the idf of an unseen term; `known` is the share of the question's words the scope
 * uses (an unknown verb form counting half, an everyday word nothing), plus 0.3 of
 * `score`. A question naming Kubernetes or WireGuard to a Debian manual uses words it
 * never does.
 */
export function confidence(e: Evidence): number {
  const richness = Math.min(1, e.vocabulary / RICH_VOCABULARY);
  const score = e.best / Math.max(1e-9, e.ceiling + e.unknown * e.unseenIdf);
  const discounted = (1 - INFLECTED_WEIGHT) * e.inflected + (1 - EVERYDAY_WEIGHT) * e.everyday;
  const known = 1 - (e.unknown - discounted) / Math.max(1, e.words) + SCORE_WEIGHT * score;
  return richness * (known - KNOWN_THRESHOLD) + (1 - richness) * (score - SCORE_THRESHOLD);
}
