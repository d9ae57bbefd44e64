import { truncatingStemFolded } from './stemmers.js';
import { CHAT_STOPWORDS } from './stopwords.js';
import { fold } from './words.js';

const WORD = /[\p{L}\p{N}]+/gu;
const COMPOUND = /([\p{L}\p{N}]+)-([\p{L}\p{N}]+)/gu;

/**
 * Content terms of a text, as retrieval and the chat compare them: words that are not
 * chat stop words, stemmed (`truncatingStem`), in order (with repeats), then each
 * hyphenated compound joined (`check-out` also gives `checkout`), which tells
 * `check-in` from `check-out` although both halves are common words.
 */
export function terms(text: string): string[] {
  const out: string[] = [];
  const folded = fold(text);
  for (const w of folded.match(WORD) ?? []) {
    if (CHAT_STOPWORDS.has(w)) continue;
    if (w.length < 2 && !(w >= '0' && w <= '9')) continue;
    out.push(truncatingStemFolded(w));
  }
  if (folded.includes('-')) for (const m of folded.matchAll(COMPOUND)) out.push(truncatingStemFolded(`${m[1]}${m[2]}`));
  return out;
}

/** Distinct content terms of a text. */
export function termSet(text: string): Set<string> {
  return new Set(terms(text));
}
