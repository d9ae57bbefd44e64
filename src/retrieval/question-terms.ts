import { languageBalance, queryWords } from '../text/analyze.js';
import { isQuestionWord } from '../text/search-words.js';
import { fold } from '../text/words.js';
import { namePhrases, unknownWeight, UNKNOWN_WEIGHT } from './confidence.js';
import type { TermGroup } from './lexical-index.js';

/** What of a scope a question's terms are looked up in. */
export interface TermScope {
  dictionary: ReadonlyMap<string, number>;
  lexical: { df(id: number): number };
}

/** A question as retrieval ranks and judges it. */
export interface QuestionTerms {
  /** Per word of the question the scope knows, the term ids it is known by (its stems in both languages). */
  groups: TermGroup[];
  /** The words that can name its subject: its content words less the words questions are put in ("whether", "cómo", "puedo"). */
  words: number;
  /** Of those, the ones the scope never uses, and what they weigh against the evidence (`unknownWeight`): names and words of no language, the others. */
  unknown: number;
  strong: number;
  weak: number;
  /**
   * The names of several words the question writes ("Google Drive") whose every word the
   * scope uses: per word, its term ids. Whether a chunk holds them all is the index's to say.
   */
  names: TermGroup[][];
}

/**
 * The one step where a question's terms are chosen (decisions, D-760, D-762): each
 * content word is looked up under its Snowball stems in both languages (a short
 * question's language is a guess), a term an earlier word already brought counting once
 * (`install`, `installing`), as in the bag of stems a BM25 ranks. A step that brings a
 * question's words into another language belongs here, before the ranking. The counts
 * are the confidence's (`confidence.ts`): a word questions are put in ("whether",
 * "cómo", "puedo") says nothing of the subject, known or not.
 */
export function questionTerms(scope: TermScope, query: string): QuestionTerms {
  const groups: TermGroup[] = [];
  const taken = new Set<number>();
  let words = 0;
  let unknown = 0;
  let strong = 0;
  let weak = 0;
  let balance: number | undefined;
  const idsOf = (stems: string[]) => [...new Set(stems.map((s) => scope.dictionary.get(s)))].filter((id): id is number => id !== undefined && scope.lexical.df(id) > 0);
  const phrases = namePhrases(query);
  const named = new Set(phrases.flat());
  for (const word of queryWords(query)) {
    const ids = idsOf(word.stems);
    const fresh = ids.filter((id) => !taken.has(id));
    for (const id of fresh) taken.add(id);
    if (fresh.length) groups.push(fresh);
    if (isQuestionWord(fold(word.word))) continue;
    words += 1;
    if (ids.length) continue;
    unknown += 1;
    balance ??= languageBalance(query);
    const weight = unknownWeight(word.word, named.has(word.word), balance);
    if (weight >= UNKNOWN_WEIGHT.name) strong += weight;
    else weak += weight;
  }
  const names: TermGroup[][] = [];
  for (const phrase of phrases) {
    const content = queryWords(phrase.join(' '));
    const ids = content.map((w) => idsOf(w.stems));
    if (content.length >= 2 && ids.every((x) => x.length > 0)) names.push(ids);
  }
  return { groups, words, unknown, strong, weak, names };
}
