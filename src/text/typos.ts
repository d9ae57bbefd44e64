/*
 * Words mistyped by one slip of the keyboard (decisions, D-1069): "hostnme", "servcie",
 * "confgure", "paquetes" typed "paqeutes". A question holding one met nothing by that word,
 * and a word of no general language the knowledge never uses counted as a name it lacks:
 * one slip in the longest word refused about half the answerable questions of the
 * development corpora. The candidates are the slips a hand makes inside a word, its first
 * and last letters kept: a letter left out, one added next to a key it neighbours or
 * doubled, one changed for a neighbouring key (or for its accented form), two neighbours
 * swapped. Technical names sit one plain edit from ordinary words ("nftables" and
 * "notables", "syncthing" and "synthing"): the keyboard tells those apart from slips.
 */

// QWERTY rows, as English and Spanish keyboards have them (ñ beside l).
const ROWS = ['qwertyuiop', 'asdfghjklñ', 'zxcvbnm'];
// The letters a slip may put in where one was left out.
const LETTERS = [...'abcdefghijklmnopqrstuvwxyzáéíóúüñ'];
const ACCENTED: Record<string, string> = { a: 'á', e: 'é', i: 'í', o: 'ó', u: 'ú', á: 'a', é: 'e', í: 'i', ó: 'o', ú: 'u', ü: 'u' };
const WORD = /^[a-záéíóúüñ]+$/u;
/** Shorter words are one slip from too many others to tell which was meant. */
export const MIN_TYPO_LENGTH = 5;
/** Longer ones are seldom typed, and their candidates grow with their length: every word looked up costs the serving thread. */
const MAX_TYPO_LENGTH = 20;

/** Each key's neighbours on the keyboard: the same row's, and the rows above and below. */
const NEIGHBOURS: ReadonlyMap<string, ReadonlySet<string>> = (() => {
  const out = new Map<string, Set<string>>();
  const add = (a: string | undefined, b: string | undefined) => {
    if (!a || !b) return;
    if (!out.has(a)) out.set(a, new Set());
    if (!out.has(b)) out.set(b, new Set());
    out.get(a)!.add(b);
    out.get(b)!.add(a);
  };
  ROWS.forEach((row, r) => {
    for (let i = 0; i < row.length; i++) {
      add(row[i], row[i + 1]);
      // The row below is shifted right by about half a key: its keys i - 1 and i touch key i.
      const below = ROWS[r + 1];
      if (below) {
        add(row[i], below[i - 1]);
        add(row[i], below[i]);
      }
    }
  });
  return out;
})();

/** Whether key `b` neighbours key `a`, or is its accented (or plain) form. */
function near(a: string, b: string): boolean {
  return ACCENTED[a] === b || (NEIGHBOURS.get(a)?.has(b) ?? false);
}

/**
 * The words one slip away from `word` (lowercase), each once, in a fixed order (a letter
 * left out, an extra one, a changed one, two swapped; left to right), `word` itself left
 * out; none for a word shorter than five letters, longer than 20, or holding anything but
 * letters. The first and the last letter are never the slip's.
 */
export function slipsOf(word: string): string[] {
  if (word.length < MIN_TYPO_LENGTH || word.length > MAX_TYPO_LENGTH || !WORD.test(word)) return [];
  const out = new Set<string>();
  const last = word.length - 1;
  // A letter left out: put any letter back between two of the word's.
  for (let i = 1; i <= last; i++) for (const c of LETTERS) out.add(word.slice(0, i) + c + word.slice(i));
  // An extra letter: one doubled, or struck with its neighbour key.
  for (let i = 1; i < last; i++) {
    const extra = word[i]!;
    const before = word[i - 1]!;
    const after = word[i + 1]!;
    if (extra === before || extra === after || near(before, extra) || near(after, extra)) out.add(word.slice(0, i) + word.slice(i + 1));
  }
  // A changed letter: the key beside the meant one.
  for (let i = 1; i < last; i++) for (const c of LETTERS) if (near(word[i]!, c)) out.add(word.slice(0, i) + c + word.slice(i + 1));
  // Two neighbours swapped.
  for (let i = 1; i + 1 < last; i++) out.add(word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2));
  out.delete(word);
  return [...out];
}

/** Whether `a` and `b` differ by at most one letter left out, added or changed, or two neighbours swapped. */
export function withinOneSlip(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length > b.length) return a.slice(i + 1) === b.slice(i);
  if (a.length < b.length) return a.slice(i) === b.slice(i + 1);
  return a.slice(i + 1) === b.slice(i + 1) || (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2));
}
