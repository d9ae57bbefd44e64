/**
 * What a word is, for every part that reads text: runs of letters and digits. Two forms
 * exist on purpose (decisions, D-150): `words` folds case and accents and is what the
 * knowledge pipeline indexes, embeds and detects languages on; `accentedWords` keeps
 * the accents (lowercase only), which the chat's language guess needs to tell `qué`
 * from `que`. Folding a word of `accentedWords` is not always the same as the word of
 * `words` (compatibility characters such as `½` split differently), so each caller
 * keeps the form its stored outputs were made with.
 */

const MARKS = /\p{M}+/gu;
// Words are runs of letters and digits: a regular expression is fifty times faster
// than the word segmenter, and the index reads every chunk once.
const WORD = /[\p{L}\p{N}]+/gu;

/** Lowercase without diacritics (`Canción` → `cancion`), the form words are compared in. */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(MARKS, '').toLowerCase();
}

// Words repeat (Zipf): most folds of a single word come from here. Bounded so that a
// long-running process reading endless new words keeps a flat memory; only short words,
// which V8 copies out of the text they were matched in: a longer one is a view that
// would keep its whole text alive.
const FOLD_CACHE = 100_000;
const FOLD_CACHED_LENGTH = 12;
const folded = new Map<string, string>();

/** `fold(word)` for one word, remembered: the pipeline folds the same words over and over. */
export function foldWord(word: string): string {
  if (word.length > FOLD_CACHED_LENGTH) return fold(word);
  let out = folded.get(word);
  if (out === undefined) {
    out = fold(word);
    if (folded.size >= FOLD_CACHE) folded.clear();
    folded.set(word, out);
  }
  return out;
}

/** The folded words of `text`, in order. */
export function words(text: string): string[] {
  return fold(text).match(WORD) ?? [];
}

/** The words of `text` as written (letters and digits, case and accents kept), in order. */
export function rawWords(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** The words of `text` lowercase with their accents kept (NFC), in order. */
export function accentedWords(text: string): string[] {
  return text.normalize('NFC').toLowerCase().match(WORD) ?? [];
}
