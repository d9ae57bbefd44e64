/**
 * Text analysis for the experiments: words, stopwords of both languages, Snowball stems,
 * and a language guess per block of text. Everything here is a pure function of the
 * text: no per-corpus state.
 */
import { stemmer as oramaEnglish } from '@orama/stemmers/english';
import { stemmer as spanishSnowball } from '@orama/stemmers/spanish';
import { eng, spa } from 'stopword';
import englishPorter2 from 'wink-porter2-stemmer';
import { FUNCTION_WORDS_EN as STOPWORDS_EN, FUNCTION_WORDS_ES as STOPWORDS_ES } from '../../../src/text/stopwords.js';

export type Lang = 'en' | 'es';

const MARKS = /\p{M}+/gu;
const WORD = /[\p{L}\p{N}]+/gu;

/** Lowercase, no diacritics: the form stems are compared in. */
export function fold(s: string): string {
  return s.normalize('NFKD').replace(MARKS, '').toLowerCase();
}

// Question words and fillers that say nothing of a subject, in both languages: a question
// is mostly these ("How can I ...", "¿Cómo puedo ...?"). Generic, not tuned to the set.
const QUESTION_FILLERS =
  'how what which why when where who whom whose can could would should do does did get make want need way ways use using ' +
  'possible anything something someone thing things instead also just still even really without right ' +
  'como que cual cuales por donde cuando quien puedo puede pueden hago hacer haga quiero necesito forma manera usar uso ' +
  'algo alguien cosa cosas mismo tambien solo aun sin bien debo deberia tengo tiene hay';
const STOP: ReadonlySet<string> = new Set([...eng, ...spa, ...STOPWORDS_EN, ...STOPWORDS_ES, ...QUESTION_FILLERS.split(' ')].map(fold));

export function isStop(folded: string): boolean {
  return STOP.has(folded);
}

/** Lowercased words (accents kept: the Spanish stemmer wants them). */
export function words(text: string): string[] {
  return text.normalize('NFC').toLowerCase().match(WORD) ?? [];
}

const stemCache: Record<Lang, Map<string, string>> = { en: new Map(), es: new Map() };
/**
 * English: @orama/stemmers' (Porter), the package that also gives the Spanish Snowball,
 * so one dependency serves both; `BENCH_ENGLISH_STEMMER=porter2` uses wink's Porter2 (the
 * baseline's) instead, 0.005 MRR@10 lower on both halves.
 */
const englishStemmer: (w: string) => string = process.env.BENCH_ENGLISH_STEMMER === 'porter2' ? englishPorter2 : oramaEnglish;

/** The Snowball stem of a lowercased word in `lang`, folded. */
export function stem(word: string, lang: Lang): string {
  const cache = stemCache[lang];
  let out = cache.get(word);
  if (out === undefined) {
    out = fold(lang === 'en' ? englishStemmer(word) : spanishSnowball(word));
    if (cache.size > 200_000) cache.clear();
    cache.set(word, out);
  }
  return out;
}

// Function words that only one language writes: the language signal.
const ONLY_ES = new Set([...STOPWORDS_ES, ...spa.map(fold)].filter((w) => !STOPWORDS_EN.has(w) && !eng.includes(w)));
const ONLY_EN = new Set([...STOPWORDS_EN, ...eng].filter((w) => !STOPWORDS_ES.has(w) && !spa.map(fold).includes(w)));
const SPANISH_MARKS = /[ñ¿¡áéíóú]/g;

/** Evidence for Spanish minus evidence for English in a text (positive: Spanish). */
export function langBalance(text: string): number {
  let es = 0;
  let en = 0;
  for (const w of words(text)) {
    const f = fold(w);
    if (ONLY_ES.has(f)) es += 1;
    else if (ONLY_EN.has(f)) en += 1;
  }
  es += 0.5 * (text.toLowerCase().match(SPANISH_MARKS)?.length ?? 0);
  return es - en;
}

export function detect(text: string, fallback: Lang): Lang {
  const b = langBalance(text);
  return b > 0 ? 'es' : b < 0 ? 'en' : fallback;
}

export interface Block {
  text: string;
  lang: Lang;
  heading: boolean;
}

/**
 * A chunk's Markdown cut into blocks (blank-line separated; a heading line is a block of
 * its own), each with its own language: partly translated documents mix English and
 * Spanish paragraphs, and a block too short to tell takes the chunk's language.
 */
export function blocks(markdown: string, chunkLang: Lang): Block[] {
  const out: Block[] = [];
  for (const raw of markdown.split(/\n\s*\n/)) {
    for (const part of splitHeadings(raw)) {
      const text = part.text.trim();
      if (!text) continue;
      out.push({ text, heading: part.heading, lang: detect(text, chunkLang) });
    }
  }
  return out;
}

function splitHeadings(raw: string): { text: string; heading: boolean }[] {
  const out: { text: string; heading: boolean }[] = [];
  let body: string[] = [];
  for (const line of raw.split('\n')) {
    if (/^\s{0,3}#{1,6}\s/.test(line)) {
      if (body.length) out.push({ text: body.join('\n'), heading: false });
      body = [];
      // Section numbers ("3.2.1.") say nothing of the subject.
      out.push({ text: line.replace(/^\s{0,3}#{1,6}\s+/, '').replace(/^[\d.]+\s+/, ''), heading: true });
    } else body.push(line);
  }
  if (body.length) out.push({ text: body.join('\n'), heading: false });
  return out;
}

/** Content stems of a text in one language, in order (repeats kept). */
export function stems(text: string, lang: Lang): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    const f = fold(w);
    if (STOP.has(f) || (f.length < 2 && !/\d/.test(f))) continue;
    out.push(stem(w, lang));
  }
  return out;
}

/** A query's content words, each with its stems in both languages (a short question's language is a guess). */
export function queryWords(text: string): { word: string; stems: string[] }[] {
  const seen = new Set<string>();
  const out: { word: string; stems: string[] }[] = [];
  for (const w of words(text)) {
    const f = fold(w);
    if (STOP.has(f) || (f.length < 2 && !/\d/.test(f)) || seen.has(w)) continue;
    seen.add(w);
    out.push({ word: w, stems: [...new Set([stem(w, 'en'), stem(w, 'es')])] });
  }
  return out;
}
