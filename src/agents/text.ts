/**
 * Text helpers shared by retrieval and the default responder: words, sentence
 * segmentation (the platform's `Intl.Segmenter`), accent folding, stop words, a light
 * stemmer for Spanish and English, and a language guess.
 */
export type Lang = 'es' | 'en';

// Words are runs of letters and digits: a regular expression is fifty times faster
// than the word segmenter, and the index reads every chunk once.
const WORD = /[\p{L}\p{N}]+/gu;
const COMPOUND = /([\p{L}\p{N}]+)-([\p{L}\p{N}]+)/gu;
const sentenceSegmenters: Record<Lang, Intl.Segmenter> = {
  es: new Intl.Segmenter('es', { granularity: 'sentence' }),
  en: new Intl.Segmenter('en', { granularity: 'sentence' }),
};

const EN_STOP =
  'a an the and or but if then so of to in on at by for with without within from about into over after before under between per via ' +
    'is are was were be been being am do does did have has had having can could will would shall should may might must ' +
    'i me my we our us you your he him his she her it its they them their this that these those there here ' +
    'what which who whom whose when where why how all any both each few more most other some such no nor not only own same ' +
    'than too very just also as up out off again further once please tell know want need like get got let lets ' +
    'hi hello thanks thank ok okay yes';

const ES_STOP =
  'el la los las un una unos unas y o u e ni pero si sino que de del al a en por para con sin sobre entre hasta desde ' +
    'es son era eran ser fue fueron está están estar estoy estás hay ha han he has haber tiene tienen tener tengo ' +
    'puede pueden puedo puedes podéis podemos podría hacer hace hago hacéis tenéis tenemos tienes se me te le les nos os lo mi mis tu tus su sus nuestro nuestra vuestro vuestra vuestros vuestras ' +
    'yo tú él ella ellos ellas usted ustedes este esta estos estas ese esa esos esas eso esto aquí allí ' +
    'qué cuál cuáles quién quiénes cuándo dónde cómo cuánto cuánta cuántos cuántas por qué muy más menos también ' +
    'ya no sí como cuando donde porque todo toda todos todas algo alguno alguna otro otra otros otras mismo ' +
    'hola gracias favor quiero quisiera saber decir dime necesito';

/** Words that only Spanish writes this often (used to guess the language of a message). */
const ES_MARKERS = new Set(['el', 'la', 'los', 'las', 'de', 'del', 'que', 'qué', 'y', 'en', 'es', 'por', 'para', 'con', 'una', 'un', 'cómo', 'cuál', 'dónde', 'cuándo', 'hay', 'tienen', 'puedo', 'hola', 'gracias', 'sí', 'más', 'su', 'sus', 'se', 'al', 'lo', 'mi', 'tu', 'son', 'está', 'están', 'horario', 'precio']);
const EN_MARKERS = new Set(['the', 'of', 'and', 'to', 'is', 'are', 'what', 'how', 'when', 'where', 'which', 'do', 'does', 'can', 'you', 'your', 'i', 'my', 'a', 'an', 'in', 'on', 'for', 'with', 'it', 'its', 'hello', 'hi', 'thanks', 'please', 'there', 'have', 'has', 'price', 'hours']);

/** Lowercase without accents: `Atención` and `atencion` compare equal. */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

/** The words of a text (runs of letters and digits), lowercase, accents kept. */
export function words(text: string): string[] {
  return text.normalize('NFC').toLowerCase().match(WORD) ?? [];
}

/** Stop words of both languages, folded (no accents), as `terms` meets them. */
const STOP: ReadonlySet<string> = new Set(fold(`${EN_STOP} ${ES_STOP}`).split(' '));

export function isStopWord(word: string): boolean {
  return STOP.has(fold(word));
}

const SUFFIXES = ['amientos', 'imientos', 'amiento', 'imiento', 'aciones', 'iciones', 'ations', 'mente', 'acion', 'icion', 'ation', 'ments', 'ment', 'ings', 'ing', 'ies', 'es', 'ed', 's'];

/**
 * A light stem, the same for both languages: folded, a common inflection suffix off,
 * then at most 6 characters, so `reservations`, `reservation` and `reservar` meet.
 */
export function stem(word: string): string {
  return stemFolded(fold(word));
}

// Words repeat (Zipf): most stems come from here. Bounded so a long-running process
// reading endless new words keeps a flat memory.
const stems = new Map<string, string>();
const STEM_CACHE = 100_000;

function stemFolded(folded: string): string {
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

/**
 * Content terms of a text: words that are not stop words, stemmed, in order (with
 * repeats), then each hyphenated compound joined (`check-out` also gives `checkout`),
 * which tells `check-in` from `check-out` although both halves are common words.
 */
export function terms(text: string): string[] {
  const out: string[] = [];
  const folded = fold(text);
  for (const w of folded.match(WORD) ?? []) {
    if (STOP.has(w)) continue;
    if (w.length < 2 && !(w >= '0' && w <= '9')) continue;
    out.push(stemFolded(w));
  }
  if (folded.includes('-')) for (const m of folded.matchAll(COMPOUND)) out.push(stemFolded(`${m[1]}${m[2]}`));
  return out;
}

/** Distinct content terms of a text. */
export function termSet(text: string): Set<string> {
  return new Set(terms(text));
}

/**
 * The language a message is written in: Spanish punctuation and accents or more
 * Spanish function words make it `es`; otherwise `en`, or `fallback` when nothing tells.
 */
export function detectLanguage(text: string, fallback: Lang = 'en'): Lang {
  let es = /[¿¡ñ]/i.test(text) ? 2 : 0;
  let en = 0;
  if (/[áéíóú]/i.test(text)) es += 1;
  for (const w of words(text)) {
    if (ES_MARKERS.has(w)) es += 1;
    if (EN_MARKERS.has(w)) en += 1;
  }
  if (es === en) return fallback;
  return es > en ? 'es' : 'en';
}

export interface Sentence {
  text: string;
  /** The Markdown heading the sentence sits under ('' when none). */
  heading: string;
}

/**
 * The sentences of a passage. Markdown line structure counts: a list item is a
 * sentence of its own even without a full stop, and a heading is no sentence but the
 * `heading` of the sentences under it, which says what they are about.
 */
export function sentences(text: string, lang: Lang): Sentence[] {
  const out: Sentence[] = [];
  let heading = '';
  for (const rawLine of text.split(/\n+/)) {
    const isHeading = /^\s{0,3}#{1,6}\s/.test(rawLine);
    const line = rawLine
      .replace(/^\s{0,3}(#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)/, '')
      .replace(/[*_`]+/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .trim();
    if (!line) continue;
    if (isHeading) {
      heading = line;
      continue;
    }
    for (const s of sentenceSegmenters[lang].segment(line)) {
      const sentence = s.segment.trim();
      if (sentence) out.push({ text: sentence, heading });
    }
  }
  return out;
}

/** Normalised form of a message for "the same message" comparisons: folded, words only. */
export function normaliseMessage(text: string): string {
  return words(text).map(fold).join(' ');
}
