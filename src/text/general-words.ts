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
 * True when `word` (lowercase, accents kept) is a word of general English or Spanish:
 * its Snowball stem in either language is the stem of a listed word. Decoded on first
 * use (about 76,000 stems).
 */
export function isGeneralWord(word: string): boolean {
  lists ??= { en: decode(GENERAL_EN), es: decode(GENERAL_ES) };
  return lists.en.has(snowballStem(word, 'en')) || lists.es.has(snowballStem(word, 'es'));
}
