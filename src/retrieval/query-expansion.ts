import type { Lexicon } from '../knowledge/lexicon/lexicon.js';
import { bothStems, snowballStem, type QueryWord } from '../text/analyze.js';
import { isQuestionWord, LONGEST_QUESTION_WORD } from '../text/search-words.js';
import { fold } from '../text/words.js';
import { accentedForms } from '../text/accents.js';
import { isGeneralWord } from '../text/general-words.js';
import { otherSpellings } from '../text/spelling.js';
import { MIN_TYPO_LENGTH, slipsOf, withinOneSlip } from '../text/typos.js';

/*
 * The query pipeline's expansion step (decisions, D-791): before ranking, each content
 * word of the question also looks for its translations in the workspace's lexicon
 * (learned from its own translations, D-785), as weaker alternatives of the same word.
 * A chunk scores a word's best alternative, never their sum: a passage holding the
 * question's own word scores as before, and one holding only its translation scores
 * less, so that the step helps a question whose answer is written in the other
 * language and cannot push a passage in the question's own words down.
 */

/** What retrieval needs of the workspace's lexicon. */
export interface LexiconLookup {
  get(workspaceId: string): Promise<Lexicon>;
  /** Changes whenever the lexicon does ('' without one). */
  print(workspaceId: string): Promise<string>;
  /** Each ready source `lexicon` found a twin for, by id, to its twins' ids (D-1123, D-1124). */
  twinsOf?(workspaceId: string, lexicon: Lexicon): Promise<ReadonlyMap<string, readonly string[]>>;
}

/**
 * What a translation counts against the word itself (D-791): the largest weight of those
 * measured (0.3, 0.5, 0.7, 1) under which no corpus's overall MRR@10 fell by more than
 * 0.001; more helps cross-language questions further and pushes same-language answers down.
 */
export const TRANSLATION_WEIGHT = 0.3;

/**
 * What a translation counts in a passage whose source has no twin (D-1123): the word
 * itself. There the question's own language cannot find the answer, and a passage of a
 * twin still counts `TRANSLATION_WEIGHT`, so a question whose answer is written in its
 * own language ranks as before. Measured on the five bilingual non-blind corpora and on
 * the development set with some chapters' Spanish left out (`bench/relevance`,
 * fourteenth round): 0.5, 0.7 and 1 each at least 0.3's figures everywhere, 1 the most.
 */
export const LONE_TRANSLATION_WEIGHT = 1;
/** At most this many translations per word, the strongest first. */
const MAX_TRANSLATIONS = 3;

/**
 * The word with its plural `s` taken off, or put on (D-1047): Porter2 keeps the `s` of a
 * plural with no vowel before it ("CDs", "VMs", "SSDs": `cds`) or with one only just
 * before it ("GPUs": `gpus`), and no stemmer puts one on, so a question's "CDs" never met
 * the manual's "CD", nor its "VM" the manual's "VMs". Only for a word the scope knows in
 * none of its own forms: a word the scope uses is ranked as the baseline ranks it.
 */
function otherNumber(word: string): string | undefined {
  if (!/^\p{L}[\p{L}\p{N}]*$/u.test(word)) return undefined;
  if (word.endsWith('s')) return word.length >= 3 && !word.endsWith('ss') ? word.slice(0, -1) : undefined;
  return word.length >= 2 ? `${word}s` : undefined;
}

/**
 * Whether `candidate`, one slip from the typed `word`, is a word its `stem` stands for
 * rather than a made-up one a stemmer happened to cut into a known stem ("anosible", one
 * letter from "ansible", is Spanish and English `anos`): the two stems are one slip
 * apart ("hostnme", "hostname"); or the slip fell in the ending the stemmer takes off
 * (the typed word starts with the stem: "cachig", `cach`); or it fell inside a stem of
 * five letters or more ("diffreence", `differ`).
 */
function slipKept(word: string, typed: string, candidate: string, stem: string): boolean {
  if (withinOneSlip(stem, typed) || word.startsWith(stem)) return true;
  let i = 0;
  while (i < word.length && word[i] === candidate[i]) i++;
  return stem.length >= 5 && i < stem.length;
}

/** Whether `word` is `stem` and a final d: a daemon's name ("systemd", "journald"), not "systemed" mistyped. */
function isDaemonOf(word: string, stem: string): boolean {
  return word.length === stem.length + 1 && word.endsWith('d') && word.startsWith(stem);
}

/**
 * The scope's term a word mistyped by one slip of the keyboard stands for (D-1069): of the
 * words one slip away (`slipsOf`), the one whose stem the scope uses in the most chunks,
 * ties to the alphabetically first stem; none when the scope uses none. The candidate
 * must be a word its stem stands for (`slipKept`), and the scope's stem with a d after it
 * is no slip: Unix names its daemons so ("systemd", "crond", "httpd").
 */
function mistypedTerm(word: string, slips: readonly string[], id: (stem: string) => number | undefined, df: (id: number) => number): number | undefined {
  let best: { id: number; df: number; stem: string } | undefined;
  for (const lang of ['en', 'es'] as const) {
    const typed = snowballStem(word, lang);
    for (const candidate of slips) {
      const stem = snowballStem(candidate, lang);
      const found = id(stem);
      if (found === undefined || !slipKept(word, typed, candidate, stem) || isDaemonOf(word, stem)) continue;
      const n = df(found);
      if (!best || n > best.df || (n === best.df && stem < best.stem)) best = { id: found, df: n, stem };
    }
  }
  return best?.id;
}

/** A query word's alternatives: its own forms' term ids (weight 1), then its translations'. */
export interface ExpandedWord {
  ids: number[];
  weights: number[];
  /** Whether the scope uses one of the word's own forms. */
  own: boolean;
  /** A function word mistyped ("shoud"): no subject word, known or not (D-1069). */
  functionWord?: true;
}

/**
 * The term ids of `word` in the scope (`id` answers a stem's id when the scope uses it),
 * with its translations' when `lexicon` knows some. `balance` is the question's
 * `languageBalance`: positive, the words are Spanish and go to English; negative, the
 * reverse; 0, both ways. `spanishHeld`: the scope holds Spanish, so a bare Spanish word
 * may be looked up with its accents (D-1062).
 */
export function expandWord(
  word: QueryWord,
  id: (stem: string) => number | undefined,
  lexicon: Lexicon | undefined,
  balance: number,
  spanishHeld = true,
  typos?: { df(id: number): number; left: number },
): ExpandedWord {
  const ids: number[] = [];
  const weights: number[] = [];
  const addOwn = (stems: readonly string[]) => {
    for (const stem of stems) {
      const own = id(stem);
      if (own !== undefined && !ids.includes(own)) {
        ids.push(own);
        weights.push(1);
      }
    }
  };
  addOwn(word.stems);
  const other = ids.length === 0 ? otherNumber(word.word) : undefined;
  if (other) addOwn(bothStems(other));
  // British and American spellings (D-1048), of a question not told to be Spanish ("libre" is no "liber").
  if (ids.length === 0 && balance <= 0) for (const spelling of otherSpellings(word.word)) addOwn(bothStems(spelling));
  // Spanish typed without its accents (D-1062), of a question not told to be English: the
  // first form the scope uses ("combinacion" is "combinación"), the accent nearest the end first.
  if (ids.length === 0 && balance >= 0 && spanishHeld) {
    for (const form of accentedForms(word.word)) {
      addOwn([snowballStem(form, 'es')]);
      if (ids.length) break;
    }
  }
  // A word of no general language met nowhere may be a slip of the keyboard (D-1069):
  // "hostnme" is "hostname" when the scope uses that; a general word ("form") is no slip.
  if (ids.length === 0 && typos && typos.left > 0 && word.word.length >= MIN_TYPO_LENGTH && !isGeneralWord(word.word)) {
    typos.left -= 1;
    const slips = slipsOf(word.word);
    // "shoud", "wich", "porqeu": a function word mistyped says nothing of the subject.
    if (word.word.length <= LONGEST_QUESTION_WORD + 1 && slips.some((slip) => isQuestionWord(fold(slip))))
      return { ids, weights, own: false, functionWord: true };
    const meant = mistypedTerm(word.word, slips, id, typos.df);
    if (meant !== undefined) {
      ids.push(meant);
      weights.push(1);
    }
  }
  const out = { ids, weights, own: ids.length > 0 };
  if (!lexicon || lexicon.size === 0) return out;
  const translated: [string, number][] = [
    ...(balance >= 0 ? lexicon.translate(snowballStem(word.word, 'es'), 'en') : []),
    ...(balance <= 0 ? lexicon.translate(snowballStem(word.word, 'en'), 'es') : []),
  ];
  translated.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let added = 0;
  for (const [stem] of translated) {
    if (added === MAX_TRANSLATIONS) break;
    const other = id(stem);
    if (other === undefined || ids.includes(other)) continue;
    ids.push(other);
    weights.push(TRANSLATION_WEIGHT);
    added += 1;
  }
  return out;
}
