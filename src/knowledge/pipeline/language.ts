import { STOPWORDS_EN, STOPWORDS_ES, words } from '../text/words.js';

export type Lang = 'es' | 'en';

// Function words that belong to one language only carry the signal.
const ONLY_ES = new Set([...STOPWORDS_ES].filter((w) => !STOPWORDS_EN.has(w)));
const ONLY_EN = new Set([...STOPWORDS_EN].filter((w) => !STOPWORDS_ES.has(w)));
const SPANISH_MARKS = /[ñÑ¿¡áéíóúÁÉÍÓÚ]/g;
const SAMPLE_WORDS = 5000;

/**
 * `es` or `en`: which language's function words (plus Spanish spelling marks) the text
 * uses more. Deterministic; English when nothing tells them apart.
 */
export function detectLanguage(text: string): Lang {
  const sample = words(text.length > 60_000 ? text.slice(0, 60_000) : text).slice(0, SAMPLE_WORDS);
  let es = 0;
  let en = 0;
  for (const w of sample) {
    if (ONLY_ES.has(w)) es += 1;
    else if (ONLY_EN.has(w)) en += 1;
  }
  es += 0.5 * Math.min(sample.length, (text.slice(0, 60_000).match(SPANISH_MARKS) ?? []).length);
  return es > en ? 'es' : 'en';
}
