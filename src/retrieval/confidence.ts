/*
 * Knowing when it does not know (decisions, D-303): two detectors, weighed by how rich
 * the knowledge's vocabulary is. Calibrated on the tuning half of the development set
 * (bench/relevance/experiments/DESIGN.md, section 4); checked on its test half, a
 * second corpus and the hotel fixture.
 */

/**
 * The `known` detector's threshold: the tuning half's value that refuses 80% of its
 * no-answer questions with that detector alone.
 */
const KNOWN_THRESHOLD = 0.938;
/** The `score` detector's: the best chunk holds under 5% of the question's weight (the classic no-match rule, not tuned). */
const SCORE_THRESHOLD = 0.05;
/**
 * A knowledge base using this many distinct terms has met the ordinary words of its
 * field, so a question word it never uses is telling. A small one (a hotel's 24 pages,
 * about 500 terms) has not met most ordinary words ("dog", "noon"), and there the vote
 * shifts to the best chunk's score. Any value from about 1,000 to 6,500 gave the same
 * figures on the three sets measured.
 */
const RICH_VOCABULARY = 5_000;

export interface Evidence {
  /** The best eligible chunk's BM25F score (0 when none matched). */
  best: number;
  /** The query's ceiling: the score of an average chunk holding every known word once. */
  ceiling: number;
  /** The question's content words, and how many of them the scope never uses. */
  words: number;
  unknown: number;
  /** The idf a word the scope never uses would have. */
  unseenIdf: number;
  /** Distinct terms the scope uses. */
  vocabulary: number;
}

/**
 * How sure retrieval is that it found something; below 0 it returns no passages.
 * `score` is the best chunk's score over the ceiling, each unknown word counting with
 * the idf of an unseen term; `known` is the share of the question's words the scope
 * uses, plus a tenth of `score` to order questions whose words are all known. A
 * question naming Kubernetes or WireGuard to a Debian manual uses words it never does.
 */
export function confidence(e: Evidence): number {
  const richness = Math.min(1, e.vocabulary / RICH_VOCABULARY);
  const score = e.best / Math.max(1e-9, e.ceiling + e.unknown * e.unseenIdf);
  const known = 1 - e.unknown / Math.max(1, e.words) + score / 10;
  return richness * (known - KNOWN_THRESHOLD) + (1 - richness) * (score - SCORE_THRESHOLD);
}
