import { languageBalance, queryWords } from '../text/analyze.js';
import { isQuestionWord } from '../text/search-words.js';
import type { Language } from '../text/language.js';
import { fold } from '../text/words.js';
import { addressedNames, HELD_LANGUAGE_SHARE, hyphenatedNameTails, namePhrases, unknownWeight, UNKNOWN_WEIGHT } from './confidence.js';
import type { TermGroup } from './lexical-index.js';
import type { Lexicon } from '../knowledge/lexicon/lexicon.js';
import { expandWord } from './query-expansion.js';

/** What of a scope a question's terms are looked up in. */
export interface TermScope {
  dictionary: ReadonlyMap<string, number>;
  lexical: { df(id: number): number };
  /** The share of the scope's chunks written in `lang` (without it: every language is held). */
  languageShare?(lang: Language): number;
}

/** The most words of one question looked for as slips of the keyboard (D-1069). */
const MAX_CORRECTED_WORDS = 3;

/** A question as retrieval ranks and judges it. */
export interface QuestionTerms {
  /** Per word of the question the scope knows, the term ids it is known by (its stems in both languages). */
  groups: TermGroup[];
  /** Per group, what each of its terms counts: 1 for the word's own forms, less for a translation (D-791). */
  weights: number[][];
  /** The words that can name its subject: its content words less the words questions are put in ("whether", "cómo", "puedo") and numbers. */
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
  /** The question's language, when its words tell (`languageBalance`). */
  language: Language | undefined;
}

/**
 * The one step where a question's terms are chosen (decisions, D-760, D-762): each
 * content word is looked up under its Snowball stems in both languages (a short
 * question's language is a guess), a term an earlier word already brought counting once
 * (`install`, `installing`), as in the bag of stems a BM25 ranks. A step that brings a
 * question's words into another language belongs here, before the ranking: with the
 * workspace's `lexicon`, each word also brings its translations, weighing less (D-791).
 * The counts are the confidence's (`confidence.ts`): a word questions are put in
 * ("whether", "cómo", "puedo") says nothing of the subject, known or not, and a word
 * only its translation finds is not unknown (the knowledge holds it, in the other language).
 */
export function questionTerms(scope: TermScope, query: string, lexicon?: Lexicon): QuestionTerms {
  const groups: TermGroup[] = [];
  const weights: number[][] = [];
  const taken = new Set<number>();
  let words = 0;
  let unknown = 0;
  let strong = 0;
  let weak = 0;
  const balance = languageBalance(query);
  const id = (stem: string) => {
    const found = scope.dictionary.get(stem);
    return found !== undefined && scope.lexical.df(found) > 0 ? found : undefined;
  };
  // Accents are put back on bare Spanish words only where the knowledge holds Spanish
  // (D-1062): elsewhere a form found ("significa" as "significá", `signific`) is an
  // English stem met by chance.
  const spanish = (scope.languageShare?.('es') ?? 1) >= HELD_LANGUAGE_SHARE;
  // Who the question greets or is signed by ("Hi Sam!", "Thanks,\nJohn") is no subject (D-1063).
  const addressed = addressedNames(query);
  const phrases = namePhrases(query).filter((phrase) => !phrase.some((w) => addressed.has(w)));
  const named = new Set(phrases.flat());
  const tails = hyphenatedNameTails(query);
  // At most a few words of one question are looked for as slips of the keyboard (D-1069):
  // each costs up to a thousand lookups.
  const typos = { df: (term: number) => scope.lexical.df(term), left: MAX_CORRECTED_WORDS };
  for (const word of queryWords(query)) {
    const expanded = expandWord(word, id, lexicon, balance, spanish, typos);
    const fresh: number[] = [];
    const freshWeights: number[] = [];
    expanded.ids.forEach((term, i) => {
      if (taken.has(term)) return;
      taken.add(term);
      fresh.push(term);
      freshWeights.push(expanded.weights[i]!);
    });
    if (fresh.length) {
      groups.push(fresh);
      weights.push(freshWeights);
    }
    // "Wi-Fi" is one subject word (D-1021): its "Fi" neither counts nor weighs apart.
    // Nor is a word holding a digit ("12", "2.10", eth0: an instance, D-910), known or not (D-1064).
    if (isQuestionWord(fold(word.word)) || expanded.functionWord || tails.has(word.word) || addressed.has(word.word) || /\d/u.test(word.word)) continue;
    words += 1;
    if (expanded.ids.length) continue;
    unknown += 1;
    const weight = unknownWeight(word.word, named.has(word.word), balance);
    if (weight >= UNKNOWN_WEIGHT.name) strong += weight;
    else weak += weight;
  }
  // A name's words in the question's own forms: a translation holds no name (D-910).
  const names: TermGroup[][] = [];
  for (const phrase of phrases) {
    const content = queryWords(phrase.join(' '));
    const ids = content.map((w) => [...new Set(w.stems.map(id))].filter((x): x is number => x !== undefined));
    if (content.length >= 2 && ids.every((x) => x.length > 0)) names.push(ids);
  }
  const language = balance > 0 ? 'es' : balance < 0 ? 'en' : undefined;
  return { groups, weights, words, unknown, strong, weak, names, language };
}
