/*
 * Spanish typed without its accents (decisions, D-1062): "combinacion", "tuberia",
 * "autenticacion", "tamano" where a manual writes "combinación", "tubería",
 * "autenticación", "tamaño". Many people type Spanish so on a keyboard without dead
 * keys, and Snowball's Spanish stemmer reads the accented endings only (`combin` against
 * `combinacion`), so the word met nothing and counted as a name the knowledge lacks.
 * Spanish writes at most one acute accent in a word, and an ñ where it is one: the forms a
 * word could have had are few, and the scope's own vocabulary tells which was meant.
 */

const ACUTE: Readonly<Record<string, string>> = { a: 'á', e: 'é', i: 'í', o: 'ó', u: 'ú' };

/** Letters a Spanish word is written in, without accents: anything else is no Spanish word typed bare. */
const BARE_WORD = /^[a-z]{4,24}$/u;

/**
 * The forms `word` (lowercase, no accent and no ñ) could have had in Spanish with its
 * accents typed: one vowel with an acute accent, or one `n` as `ñ`, or both; the accent
 * nearer the word's end first, as Spanish writes it most (-ción, -ía, -ás), then the ñ
 * forms. Empty for a word of other letters, or shorter than four or longer than 24.
 * At most about 3 × the word's length forms.
 */
export function accentedForms(word: string): string[] {
  if (!BARE_WORD.test(word)) return [];
  const out: string[] = [];
  const accented = (w: string) => {
    for (let i = w.length - 1; i >= 0; i--) {
      const acute = ACUTE[w[i]!];
      if (acute) out.push(w.slice(0, i) + acute + w.slice(i + 1));
    }
  };
  accented(word);
  for (let i = word.length - 1; i >= 0; i--) {
    if (word[i] !== 'n') continue;
    const tilde = `${word.slice(0, i)}ñ${word.slice(i + 1)}`;
    out.push(tilde);
    accented(tilde);
  }
  return out;
}
