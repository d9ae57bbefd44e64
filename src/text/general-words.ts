import { snowballStem } from './analyze.js';
import { GENERAL_EN, GENERAL_ES } from './general-words-data.js';

/*
 * The words of general English and Spanish (decisions, D-910): about 80,000 words of each
 * language's subtitles and Wikipedia frequency lists (`general-words-data.ts`), kept as
 * their Snowball stems, so that any inflection of a listed word is one too
 * (`estropeen`, of `estropear`). A word in neither language's list is a name or a term
 * of art: `kubernetes`, `wireguard`, `certbot`, `swappiness`.
 */

/** The stems of a front-coded list: each is a count (0-9) of characters shared with the one before, then the rest. */
function decode(coded: string): Set<string> {
  const out = new Set<string>();
  let prev = '';
  let i = 0;
  while (i < coded.length) {
    const shared = coded.charCodeAt(i) - 48;
    let j = i + 1;
    while (j < coded.length && (coded.charCodeAt(j) < 48 || coded.charCodeAt(j) > 57)) j++;
    prev = prev.slice(0, shared) + coded.slice(i + 1, j);
    out.add(prev);
    i = j;
  }
  return out;
}

let lists: { en: Set<string>; es: Set<string> } | undefined;

/**
 * True when `word` (lowercase, accents kept) is a word of general `lang`: its Snowball stem
 * in that language is the stem of a listed word (for Spanish, or a present-tense form of a
 * listed verb). Decoded on first use (about 76,000 stems).
 */
export function isGeneralWordIn(word: string, lang: 'en' | 'es'): boolean {
  lists ??= { en: decode(GENERAL_EN), es: decode(GENERAL_ES) };
  return lang === 'en' ? lists.en.has(snowballStem(word, 'en')) : lists.es.has(snowballStem(word, 'es')) || isPresentOfListedVerb(word, lists.es);
}

/** True when `word` (lowercase, accents kept) is a word of general English or Spanish (`isGeneralWordIn` either). */
export function isGeneralWord(word: string): boolean {
  return isGeneralWordIn(word, 'en') || isGeneralWordIn(word, 'es');
}

// The endings of the Spanish present tense (and the imperative), longest first.
const PRESENT_ES = ['amos', 'emos', 'imos', 'áis', 'éis', 'as', 'es', 'an', 'en', 'ís', 'o', 'a', 'e'];

/**
 * True when `word` is a present-tense form of a Spanish verb the list holds: Snowball
 * takes a derivational ending off some such forms (`desactivo` to `desact`, `-ivo` as in
 * an adjective) that it leaves on the verb's other forms (`desactivar` to `desactiv`),
 * so the form's stem alone misses the list (D-1020). Tried with each infinitive ending.
 */
function isPresentOfListedVerb(word: string, es: Set<string>): boolean {
  // No verb is this long; a 4,000-letter "word" is not stemmed 39 times.
  if (word.length > 40) return false;
  for (const ending of PRESENT_ES) {
    if (!word.endsWith(ending) || word.length - ending.length < 3) continue;
    const root = word.slice(0, -ending.length);
    if (['ar', 'er', 'ir'].some((infinitive) => es.has(snowballStem(root + infinitive, 'es')))) return true;
  }
  return false;
}
