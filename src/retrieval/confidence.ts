import { accentedForms } from '../text/accents.js';
import { isSearchStopword, snowballStem } from '../text/analyze.js';
import { COMMON_EN, COMMON_ES } from '../text/common-words.js';
import { isGeneralWord, isGeneralWordIn } from '../text/general-words.js';
import { GREETING_WORDS, THANKING_WORDS } from '../text/search-words.js';
import { fold } from '../text/words.js';

/*
 * Knowing when it does not know (decisions, D-303, D-700, D-710, D-763, D-910, D-911).
 * A question is refused when the words its knowledge never uses weigh more than a share
 * of its subject words, each unknown word weighing by what it says of the subject: a name
 * or a word of no general language (Kubernetes, certbot) names a thing the knowledge
 * lacks; an ordinary word (brightness, thesis) may be the subject or just the user's way
 * of saying it; a verb form says how the action is put; an everyday word says nothing.
 * Refusing costs an answerable question its answer, so answering is the default: the
 * share is the one at which no answerable question the ranking finds was refused on any
 * development corpus, chosen leave-one-corpus-out (bench/relevance/README.md).
 */

/**
 * The share of a question's subject words its knowledge may not know before it is
 * refused (D-910): chosen leave-one-corpus-out on the three development corpora (the
 * folds chose 0.145, 0.12 and 0.145; 0.12 cost the held-out set found answers), inside the
 * interval from 1/7 to 1/6 where the rule refuses the same questions, on its answering
 * side. One name in up to six subject words refuses; one ordinary word refuses only a
 * question of three.
 */
const MAX_UNKNOWN_SHARE = 0.155;
/** The best chunk holds under 5% of the question's weight: the classic no-match rule, not tuned. */
export const SCORE_THRESHOLD = 0.05;
/**
 * A knowledge base using this many distinct terms has met the ordinary words of its
 * field, so an ordinary word it never uses is telling. A smaller one (a hotel's 24 pages,
 * about 500 terms; a chapter of a manual, about 1,000) has not met most ordinary words
 * ("dog", "noon"), and they count in proportion (D-911); names and words of no language
 * count whole at any size.
 */
const RICH_VOCABULARY = 5_000;

/**
 * A language at least one chunk in ten is written in is one the knowledge holds (D-965);
 * below, its ordinary words count in proportion: a knowledge base with no Spanish says
 * nothing by lacking a Spanish word. Either language of a bilingual manual holds far more.
 */
export const HELD_LANGUAGE_SHARE = 0.1;

/** What an unknown word counts against the evidence, by what it is (D-910). */
export const UNKNOWN_WEIGHT = {
  /** Written as a name (iPhone, WireGuard, CUDA, or capitalised where no sentence starts), or in no general language's word list. */
  name: 1,
  /** An ordinary word of general language (not among the 500 everyday ones). */
  ordinary: 0.5,
  /** An inflected verb or adjective form (`isInflectedForm`). */
  inflected: 0.25,
  /** An everyday word (`isEverydayWord`), or a word holding a digit (eth0, sdb2: an instance, not a subject). */
  nothing: 0,
} as const;

// Endings of inflected verbs and adjectives (English -ing, -ed, -ous; Spanish
// infinitives, also with a pronoun, gerunds, participles, the preterite's accented
// endings, -aba). Some nouns end so too (ceiling, teclado, alquiler): hence an
// inflected form weighs a little, not nothing. Endings shared with many nouns (-ly:
// family, supply; -ía: batería, tecnología) are left out. Anchored alternations:
// linear on any input.
const VERB_EN = /(?:ing|ed|ous)$/u;
const VERB_ES = /(?:[aei]r(?:lo|la|los|las|se|me|te)?|ando|iendo|ad[oa]s?|id[oa]s?|[óé]|aba)$/u;

/**
 * True for a lowercase word in an inflected verb or adjective form: the ending is one
 * of those, of the question's language (`balance`: `languageBalance` of the question,
 * positive for Spanish, 0 when it cannot tell), and the stemmer of that language takes
 * something off ("speed" and "mil" are not; "wallpaper" or "server" in an English
 * question is no Spanish infinitive), and that language's general words hold it (D-1071):
 * "syncthing" or "docker" ends like a verb form of no verb, so it is what it is, a name or
 * a word of another language. Such a word says how the user puts the action
 * ("eating my disk space", "flooding my console", "sin arriesgar"), not what the
 * question is about: the knowledge saying it in other words is no sign that it lacks
 * the subject.
 */
export function isInflectedForm(word: string, balance = 0): boolean {
  const folded = fold(word);
  return (
    (balance <= 0 && VERB_EN.test(word) && snowballStem(word, 'en') !== folded && isGeneralWordIn(word, 'en')) ||
    (balance >= 0 && VERB_ES.test(word) && snowballStem(word, 'es') !== folded && isGeneralWordIn(word, 'es'))
  );
}

const EVERYDAY_EN: ReadonlySet<string> = new Set(COMMON_EN);
const EVERYDAY_ES: ReadonlySet<string> = new Set(COMMON_ES);
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

/**
 * Two capitals that general language lists (PC, TV, OS, IP): an abbreviation everyone
 * writes in capitals, so its capitals say nothing of a name (D-1022). Longer ones
 * (VPN, AWS, CUDA) stay names: products and protocols a knowledge base may lack.
 */
function isEverydayAbbreviation(word: string): boolean {
  return word.length === 2 && /^\p{Lu}{2}$/u.test(word) && isGeneralWord(word.toLowerCase());
}

/**
 * A word in capitals that spells one of the 500 everyday words (HELP, PLEASE, REALLY,
 * IMPORTANT): emphasis in a question otherwise written in lowercase ("PLEASE HELP: how do
 * I ..."), not a name (D-1061). Acronyms and brands written in capitals are no everyday
 * word (VPN, CUDA, GNOME, NVIDIA), even where a general word list holds them.
 */
function isShoutedWord(w: string): boolean {
  return w.length >= 3 && !/\p{Ll}/u.test(w) && isEverydayWord(w.toLowerCase());
}

/** A word written with a capital first letter. */
const CAPITAL_FIRST = /^\p{Lu}/u;

/** A word of `text`: where it stands, and whether a sentence starts at it. */
interface TextWord {
  word: string;
  index: number;
  sentenceStart: boolean;
}

/**
 * The words of `text` (runs of letters and digits) in order, each knowing whether a
 * sentence starts at it: at the text's start, or after `.`, `?`, `!`, `:`, `¿`, `¡`, a
 * quote or a parenthesis. One pass.
 */
function textWords(text: string): TextWord[] {
  const out: TextWord[] = [];
  let sentenceStart = true;
  for (const m of text.matchAll(/[\p{L}\p{N}]+|[^\p{L}\p{N}\s]/gu)) {
    const w = m[0];
    if (!/[\p{L}\p{N}]/u.test(w)) {
      if (/[.?!:¿¡"'“(]/u.test(w)) sentenceStart = true;
      continue;
    }
    out.push({ word: w, index: m.index!, sentenceStart });
    sentenceStart = false;
  }
  return out;
}

/**
 * What capitals tell in `text` (D-1054): `all` in ordinary writing; `inside` in a
 * question written in Title Case, where a capital first letter marks every word (two
 * function words or more written so where no sentence starts, as no name is one), so
 * that only a capital inside a word (WireGuard, iPhone, VPN) tells a name; `nothing` in
 * one shouted in capitals (no lowercase letter at all), where the word lists alone tell
 * a name from an ordinary word.
 */
function capitalsTell(text: string, words: readonly TextWord[]): 'all' | 'inside' | 'nothing' {
  if (!/\p{Ll}/u.test(text) && (text.match(/\p{Lu}{2,}/gu)?.length ?? 0) >= 2) return 'nothing';
  let capitalFunctionWords = 0;
  for (const { word, sentenceStart } of words) {
    if (!sentenceStart && word.length >= 2 && CAPITAL_FIRST.test(word) && isSearchStopword(word.toLowerCase())) capitalFunctionWords += 1;
  }
  return capitalFunctionWords >= 2 ? 'inside' : 'all';
}

/**
 * Whether a word is written as a name: two letters or more, a capital after its first
 * letter, or (`insideOnly` false) a capital first letter where no sentence starts; an
 * everyday abbreviation (PC, TV) or a shouted everyday word (HELP, `isShoutedWord`) is none.
 */
function isWrittenAsName(w: string, sentenceStart: boolean, insideOnly: boolean): boolean {
  if (w.length < 2 || !/\p{Lu}/u.test(w) || isEverydayAbbreviation(w) || isShoutedWord(w)) return false;
  return /\p{Lu}/u.test(w.slice(1)) || (!insideOnly && !sentenceStart);
}

/**
 * The words of `text` written as names, lowercase: a capital after the first letter
 * (iPhone, WireGuard, CUDA), or a capital first letter where no sentence starts
 * (`textWords`), as far as the question's capitals tell names (`capitalsTell`), in runs:
 * the words of one name ("Google Drive", "Raspberry Pi") are written next to each other,
 * apart by a space or a hyphen.
 */
export function namePhrases(text: string): string[][] {
  const out: string[][] = [];
  let run: string[] = [];
  let end = -1;
  const nfc = text.normalize('NFC');
  const words = textWords(nfc);
  const casing = capitalsTell(nfc, words);
  for (const { word, index, sentenceStart } of words) {
    const named = casing !== 'nothing' && isWrittenAsName(word, sentenceStart, casing === 'inside');
    const joined = end >= 0 && /^[ -]?$/u.test(nfc.slice(end, index));
    if (named && joined && run.length) run.push(word.toLowerCase());
    else {
      if (run.length) out.push(run);
      run = named ? [word.toLowerCase()] : [];
    }
    end = index + word.length;
  }
  if (run.length) out.push(run);
  return out;
}

// Words a greeting or a sign-off is made of (folded): "Hi Sam!", "Thanks, John", "Dear
// Ada", "¡Hola, María!", "Buenos días, Sam", "Un saludo,\nMaría".
const GREETINGS: ReadonlySet<string> = new Set([
  ...GREETING_WORDS,
  ...THANKING_WORDS,
  ...'dear you regards saludo querido querida estimado estimada buen'.split(' '),
]);
/** A person's name as written: a capital, then lowercase letters only (Sam, María, O'Neil is two). */
const PERSON_NAME = /^\p{Lu}\p{Ll}+$/u;
// Words that may come between a greeting and the name: "Thank you so much, Sam", "Thanks in
// advance, John", "Gracias de antemano, María".
const GREETING_TAILS: ReadonlySet<string> = new Set('you so much in advance a lot all de antemano mil muchas'.split(' '));

/**
 * The words of `text` that name the person it is addressed to or signed by, lowercase
 * (D-1063): up to two capitalised words right after a greeting or a courtesy, apart from
 * it by spaces and commas only and ending where a punctuation mark, a line or the text
 * does ("Hi Sam!", "Thanks in advance, John", "¡Hola, María!"), and the
 * last line when it is one to three such words after a line ending in a comma ("Thanks,\n
 * John Smith"). People greet an assistant by its name and sign what they send; a name so
 * placed is who is spoken to, never what is asked about. One pass.
 */
export function addressedNames(text: string): Set<string> {
  const out = new Set<string>();
  const nfc = text.normalize('NFC');
  const words = textWords(nfc);
  const gap = (k: number) => nfc.slice(words[k - 1]!.index + words[k - 1]!.word.length, words[k]!.index);
  const greeting = (k: number) => GREETINGS.has(fold(words[k]!.word)) || GREETING_TAILS.has(fold(words[k]!.word));
  for (let i = 0; i < words.length; i++) {
    if (!GREETINGS.has(fold(words[i]!.word))) continue;
    let j = i + 1;
    while (j < words.length && /^[ ,]*$/u.test(gap(j)) && greeting(j)) j++;
    let end = j;
    while (end < words.length && end < j + 2 && PERSON_NAME.test(words[end]!.word) && /^[ ,]*$/u.test(gap(end))) end++;
    // The name ends where the greeting does: at a punctuation mark, a line's end or the
    // text's ("Hi Docker users, ..." greets no one by name).
    if (end > j && (end === words.length || /^ *[!,.:;?\n]/u.test(gap(end)))) for (let k = j; k < end; k++) out.add(words[k]!.word.toLowerCase());
  }
  const lines = nfc.trimEnd().split('\n');
  const last = lines.at(-1)!.trim().split(/\s+/u);
  const previous = lines
    .slice(0, -1)
    .reverse()
    .find((line) => line.trim());
  if (previous?.trimEnd().endsWith(',') && last.length <= 3 && last.every((w) => PERSON_NAME.test(w))) for (const w of last) out.add(w.toLowerCase());
  return out;
}

/**
 * The words after the first of each hyphenated name of `text` whose every part is written
 * with a capital ("Wi-Fi", "Blu-Ray"), lowercase: one name, which counts once against the
 * evidence (D-1021), where the words of "Google Drive" are two. One pass.
 */
export function hyphenatedNameTails(text: string): Set<string> {
  const out = new Set<string>();
  // Split, not one pattern over the text: a pattern for "word(-word)+" backtracks through
  // every long word without a hyphen, quadratic in a 4,000-character question.
  for (const piece of text.normalize('NFC').split(/[^\p{L}\p{N}-]+/u)) {
    if (!piece.includes('-')) continue;
    for (const compound of piece.split(/-{2,}/u)) {
      const parts = compound.split('-').filter(Boolean);
      if (parts.length >= 2 && parts.every((p) => /\p{Lu}/u.test(p))) for (const p of parts.slice(1)) out.add(p.toLowerCase());
    }
  }
  return out;
}

// English writes the days and the months with a capital: ordinary words all the same
// ("And on Sundays?"), compared by their English Snowball stems (`sundays`, `mondays`).
const CALENDAR_EN: ReadonlySet<string> = new Set(
  'monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september october november december'
    .split(' ')
    .map((w) => snowballStem(w, 'en')),
);

/**
 * What a word the scope never uses counts against the evidence (`UNKNOWN_WEIGHT`):
 * `named` when the question writes it as a name, `balance` the question's
 * `languageBalance`. A name counts whole even where it ends like a verb (Syncthing);
 * a day or a month is an ordinary word however it is written; a Spanish word typed
 * without its accents is as general as the word it spells (D-1062).
 */
export function unknownWeight(word: string, named: boolean, balance: number): number {
  if (/\d/u.test(word)) return UNKNOWN_WEIGHT.nothing;
  if (named && !CALENDAR_EN.has(snowballStem(word, 'en'))) return UNKNOWN_WEIGHT.name;
  if (isInflectedForm(word, balance)) return UNKNOWN_WEIGHT.inflected;
  if (isEverydayWord(word, balance)) return UNKNOWN_WEIGHT.nothing;
  // A Spanish word typed without its accents is the word it spells (D-1062): "tuberia".
  const general = isGeneralWord(word) || (balance >= 0 && accentedForms(word).some(isGeneralWord));
  return general ? UNKNOWN_WEIGHT.ordinary : UNKNOWN_WEIGHT.name;
}

export interface Evidence {
  /** The best eligible chunk's BM25 score (0 when none matched). */
  best: number;
  /** The query's ceiling: the score of an average chunk holding every known word once. */
  ceiling: number;
  /** The question's subject words (`questionTerms`), and how many of them the scope never uses. */
  words: number;
  unknown: number;
  /** What the unknown words weigh: names and words of no language (`strong`), the others (`weak`, `unknownWeight`). */
  strong: number;
  weak: number;
  /** Names of several words the scope uses each of, but no chunk all of them ("Google Drive"). */
  unheldNames: number;
  /** The idf a word the scope never uses would have. */
  unseenIdf: number;
  /** Distinct terms the scope uses. */
  vocabulary: number;
  /**
   * The share of the scope's chunks written in the question's language (1 when the
   * question's language cannot be told): how much of the vocabulary is of that language.
   */
  languageShare?: number;
}

/**
 * The share of the question's subject words its knowledge lacks (D-910, D-911): a name or
 * a word of no language 1, an ordinary word 0.5 and a verb form 0.25 in proportion to how
 * rich the knowledge's vocabulary is and how much of it is in the question's language, an everyday word nothing; a name of several words no
 * chunk holds together 1.
 */
export function missingShare(e: Evidence): number {
  // In the question's own language (D-965): knowledge written in English only has met no
  // Spanish word, so a Spanish question's ordinary words are unknown to it whatever its
  // subject; its names and words of no language still count whole.
  const held = Math.min(1, (e.languageShare ?? 1) / HELD_LANGUAGE_SHARE);
  const richness = Math.min(1, e.vocabulary / RICH_VOCABULARY) * held;
  return (e.strong + e.unheldNames + richness * e.weak) / Math.max(1, e.words);
}

/** The best chunk's score over the question's ceiling, each unknown word at the idf of an unseen term. */
export function bestShare(e: Evidence): number {
  return e.best / Math.max(1e-9, e.ceiling + e.unknown * e.unseenIdf);
}

/**
 * How sure retrieval is that it found something; below 0 it returns no passages: the
 * question's `missingShare` must not pass 15.5%, and the best chunk must hold at least
 * 5% of the question's weight (`bestShare`).
 */
export function confidence(e: Evidence, maxMissing = MAX_UNKNOWN_SHARE): number {
  return Math.min(maxMissing - missingShare(e), bestShare(e) - SCORE_THRESHOLD);
}
