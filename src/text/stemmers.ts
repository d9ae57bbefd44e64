import { fold } from './words.js';

/**
 * Two stemmers, each named for what it does (decisions, D-151): `stripPlural`
 * takes a plural `s` off and nothing else (the knowledge pipeline's vectors and index
 * cards), `truncatingStem` takes the commonest inflection suffix off and keeps at most
 * six letters (the chat's retrieval terms, so `reservations` meets `reservar`).
 */

/** A crude plural strip shared by English and Spanish (`precios` → `precio`, `prices` → `price`). */
export function stripPlural(word: string): string {
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

const SUFFIXES = [
  'amientos',
  'imientos',
  'amiento',
  'imiento',
  'aciones',
  'iciones',
  'ations',
  'mente',
  'acion',
  'icion',
  'ation',
  'ments',
  'ment',
  'ings',
  'ing',
  'ies',
  'es',
  'ed',
  's',
];

/**
 * A light stem, the same for both languages: folded, a common inflection suffix off,
 * then at most 6 characters, so `reservations`, `reservation` and `reservar` meet.
 */
export function truncatingStem(word: string): string {
  return truncatingStemFolded(fold(word));
}

// Words repeat (Zipf): most stems come from here. Bounded so a long-running process
// reading endless new words keeps a flat memory.
const stems = new Map<string, string>();
const STEM_CACHE = 100_000;

/** `truncatingStem` of a word already folded (the hot path: no second fold). */
export function truncatingStemFolded(folded: string): string {
  const cached = stems.get(folded);
  if (cached !== undefined) return cached;
  let w = folded;
  for (const suffix of SUFFIXES) {
    // A plural `s` may leave a short word (`dogs`); longer suffixes need a longer rest.
    const rest = suffix === 's' ? 3 : 4;
    if (w.length - suffix.length >= rest && w.endsWith(suffix) && !(suffix === 's' && w.endsWith('ss'))) {
      w = w.slice(0, w.length - suffix.length);
      break;
    }
  }
  const out = w.length > 6 ? w.slice(0, 6) : w;
  if (stems.size >= STEM_CACHE) stems.clear();
  stems.set(folded, out);
  return out;
}
