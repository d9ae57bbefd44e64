import type { Language } from './language.js';
import { FUNCTION_WORDS_EN, FUNCTION_WORDS_ES } from './stopwords.js';
import { accentedWords, words } from './words.js';

/*
 * Two detectors (decisions, D-150): a document is long, so counting the
 * function words only one language uses is reliable; a chat message is a few words,
 * so it is read with accented marker words and may fall back on the conversation's
 * language when nothing tells.
 */

// Function words that belong to one language only carry the signal.
const ONLY_ES = new Set([...FUNCTION_WORDS_ES].filter((w) => !FUNCTION_WORDS_EN.has(w)));
const ONLY_EN = new Set([...FUNCTION_WORDS_EN].filter((w) => !FUNCTION_WORDS_ES.has(w)));
const SPANISH_MARKS = /[ñÑ¿¡áéíóúÁÉÍÓÚ]/g;
const SAMPLE_WORDS = 5000;

/**
 * The language of a document: which language's function words (plus Spanish spelling
 * marks) the text uses more. Deterministic; English when nothing tells them apart.
 */
export function detectDocumentLanguage(text: string): Language {
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

/** Words that only Spanish writes this often (used to guess the language of a message). */
const ES_MARKERS = new Set([
  'el',
  'la',
  'los',
  'las',
  'de',
  'del',
  'que',
  'qué',
  'y',
  'en',
  'es',
  'por',
  'para',
  'con',
  'una',
  'un',
  'cómo',
  'cuál',
  'dónde',
  'cuándo',
  'hay',
  'tienen',
  'puedo',
  'hola',
  'gracias',
  'sí',
  'más',
  'su',
  'sus',
  'se',
  'al',
  'lo',
  'mi',
  'tu',
  'son',
  'está',
  'están',
  'horario',
  'precio',
]);
const EN_MARKERS = new Set([
  'the',
  'of',
  'and',
  'to',
  'is',
  'are',
  'what',
  'how',
  'when',
  'where',
  'which',
  'do',
  'does',
  'can',
  'you',
  'your',
  'i',
  'my',
  'a',
  'an',
  'in',
  'on',
  'for',
  'with',
  'it',
  'its',
  'hello',
  'hi',
  'thanks',
  'please',
  'there',
  'have',
  'has',
  'price',
  'hours',
]);

/**
 * The language a message is written in (decisions, D-100): Spanish punctuation and accents or more
 * Spanish function words make it `es`; otherwise `en`, or `fallback` when nothing tells.
 */
export function detectMessageLanguage(text: string, fallback: Language = 'en'): Language {
  let es = /[¿¡ñ]/i.test(text) ? 2 : 0;
  let en = 0;
  if (/[áéíóú]/i.test(text)) es += 1;
  for (const w of accentedWords(text)) {
    if (ES_MARKERS.has(w)) es += 1;
    if (EN_MARKERS.has(w)) en += 1;
  }
  if (es === en) return fallback;
  return es > en ? 'es' : 'en';
}
