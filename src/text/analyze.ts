import { stemmer as spanishStemmer } from '@orama/stemmers/spanish';
import englishStemmer from 'wink-porter2-stemmer';
import { HEADING_MARKS, headingLines } from './code-fences.js';
import type { Language } from './language.js';
import { ONLY_ENGLISH, ONLY_SPANISH, SEARCH_STOPWORDS } from './search-words.js';
import { accentedWords, fold, foldWord } from './words.js';

/*
 * Retrieval's text analysis (decisions, D-300, D-760): the words of a chunk (runs of
 * letters and digits, lowercase) less the `stopword` package's English and Spanish
 * lists, reduced to the Snowball stems of the chunk's language (the language most of
 * its words are written in), one field: what a textbook BM25 with Snowball stemming
 * indexes. The chunks of a document without a heading line have its title as one. A
 * question is too short to tell its language: each of its words is looked up under its
 * stems in both. Pure functions of the text: the same chunk analyses the same on every run.
 */

/**
 * Names this analysis. Stored with each chunk's terms: a chunk analysed by another
 * version (other stemmers, stop words or fields) is analysed again when it is read,
 * as a chunk embedded by another embedder is embedded again. Change it with the analysis.
 */
export const ANALYZER_ID = 'svc-bm25-snowball-4';

/** A word longer than this (a hash, base64) is kept whole: no stemmer knows it. */
const MAX_STEMMED = 40;
// Words repeat (Zipf): most stems come from here. Bounded so that a long-running
// process reading endless new words keeps a flat memory.
const STEM_CACHE = 200_000;
const stemCache: Record<Language, Map<string, string>> = { en: new Map(), es: new Map() };

/**
 * The Snowball stem of a lowercase word in `lang`, folded (`configuración` and
 * `configurar` give `configur`): English is Porter2 (Snowball English,
 * `wink-porter2-stemmer`), Spanish Snowball Spanish (`@orama/stemmers`), the stemmers
 * of the BM25 baseline of `bench/relevance` (D-760).
 */
export function snowballStem(word: string, lang: Language): string {
  const cache = stemCache[lang];
  let out = cache.get(word);
  if (out === undefined) {
    out = word.length > MAX_STEMMED ? fold(word) : fold(lang === 'en' ? englishStemmer(word) : spanishStemmer(word));
    if (cache.size >= STEM_CACHE) cache.clear();
    cache.set(word, out);
  }
  return out;
}

/** A lowercase word (accents kept) retrieval indexes: any but the stop words (D-760). */
function isContent(word: string): boolean {
  return !SEARCH_STOPWORDS.has(word);
}

/** Whether retrieval leaves a lowercase word out (the `stopword` package's lists, D-760). */
export function isSearchStopword(word: string): boolean {
  return SEARCH_STOPWORDS.has(word);
}

const SPANISH_MARKS = /[ñ¿¡áéíóú]/g;

/** `languageBalance` of a text whose `accentedWords` are `words`. */
function balanceOf(text: string, words: readonly string[]): number {
  let es = 0;
  let en = 0;
  for (const w of words) {
    const f = foldWord(w);
    if (ONLY_SPANISH.has(f)) es += 1;
    else if (ONLY_ENGLISH.has(f)) en += 1;
  }
  es += 0.5 * (text.toLowerCase().match(SPANISH_MARKS)?.length ?? 0);
  return es - en;
}

/** Evidence for Spanish minus evidence for English (positive: Spanish). */
export function languageBalance(text: string): number {
  return balanceOf(text, accentedWords(text));
}

const languageOf = (balance: number, fallback: Language): Language => (balance > 0 ? 'es' : balance < 0 ? 'en' : fallback);

/** The language of a block: the function words only one language writes, and Spanish marks; `fallback` on a tie. */
export function blockLanguage(text: string, fallback: Language): Language {
  return languageOf(languageBalance(text), fallback);
}

export interface TextBlock {
  text: string;
  /** A Markdown heading line (its `#` marks and section number dropped). */
  heading: boolean;
  lang: Language;
}

/** `3.2.1.` or `1.` before a heading: numbering says nothing of the subject. */
const SECTION_NUMBER = /^(?:\d+\.)+\d*\s+/;

/** A heading's or title's text without its numbering. */
export function withoutNumbering(text: string): string {
  return text.trim().replace(SECTION_NUMBER, '');
}

/**
 * A chunk's Markdown cut into blocks at blank lines, a heading line being a block of
 * its own, each with its own language: partly translated documents mix English and
 * Spanish paragraphs. A block that does not tell takes `fallback` (the document's).
 */
export function textBlocks(markdown: string, fallback: Language): TextBlock[] {
  return blockTexts(markdown).map(({ text, heading }) => ({ text, heading, lang: blockLanguage(text, fallback) }));
}

/** `textBlocks` without their languages. */
function blockTexts(markdown: string): { text: string; heading: boolean }[] {
  const out: { text: string; heading: boolean }[] = [];
  let body: string[] = [];
  const flush = () => {
    const text = body.join('\n').trim();
    if (text) out.push({ text, heading: false });
    body = [];
  };
  const lines = markdown.split('\n');
  const headings = headingLines(lines, markdown);
  for (const [i, line] of lines.entries()) {
    if (headings[i]) {
      flush();
      const text = withoutNumbering(line.replace(HEADING_MARKS, ''));
      if (text) out.push({ text, heading: true });
    } else if (line.trim() === '') flush();
    else body.push(line);
  }
  flush();
  return out;
}

/** The content stems of a text in one language, in order, repeats kept. */
export function searchStems(text: string, lang: Language): string[] {
  const out: string[] = [];
  for (const word of accentedWords(text)) if (isContent(word)) out.push(snowballStem(word, lang));
  return out;
}

const FILE_EXTENSION = /(?:\.(?:en|es))?\.(?:html?|pdf|md|markdown|txt|csv|json|docx?)$/i;

/** The words of a title: a file name without its extension and language tag (`sect.quotas.es.html`: `sect.quotas`), without numbering. */
export function titleText(title: string): string {
  return withoutNumbering(title.trim().replace(FILE_EXTENSION, ''));
}

/** A Markdown heading line anywhere in a text, maybe inside code. */
const ANY_HEADING = /^\s{0,3}#{1,6}\s/m;

/** Whether a text holds a Markdown heading line, outside code (D-1046): a document that names its own parts (D-1043). */
export function hasHeading(text: string): boolean {
  if (!ANY_HEADING.test(text)) return false;
  return headingLines(text.split('\n'), text).includes(true);
}

/**
 * A chunk's terms as stored: each distinct stem with its count. The stored format keeps
 * a second field (`head`, once headings and titles weighing twice); since D-760 it is
 * empty: the index is a plain BM25 over one field.
 */
export interface ChunkAnalysis {
  /** The language most of the chunk's own words are written in (`fallback` on a tie). */
  lang: Language;
  terms: string[];
  head: number[];
  body: number[];
  headLength: number;
  bodyLength: number;
}

/**
 * Analyses a chunk of a document written (as a whole) in `fallback`, titled `title`.
 * Its language is the one most of its words are written in (each block judged by the
 * function words only one language writes), and all its words are stemmed in that
 * language, as a BM25 with Snowball stemming over the chunk would (D-760). A chunk of a
 * document with no heading line anywhere (`headed` false: a short text, a page without
 * headings) has the title as its heading: it is how the document names its subject.
 * A document with headings names its parts itself, and its chunks are indexed as they
 * are (D-1043). An upload's file name is not indexed.
 */
export function analyzeChunk(text: string, title: string, fallback: Language, headed: boolean): ChunkAnalysis {
  let spanish = 0;
  let english = 0;
  // Each block's words read once, for its language (`textBlocks`) and its content words.
  for (const block of blockTexts(text)) {
    const words = accentedWords(block.text);
    const n = words.filter(isContent).length;
    if (languageOf(balanceOf(block.text, words), fallback) === 'es') spanish += n;
    else english += n;
  }
  const lang: Language = spanish > english ? 'es' : english > spanish ? 'en' : fallback;
  const stems = searchStems(text, lang);
  if (!headed) stems.push(...searchStems(titleText(title), lang));
  const counts = new Map<string, number>();
  for (const stem of stems) counts.set(stem, (counts.get(stem) ?? 0) + 1);
  const terms = [...counts.keys()];
  return { lang, terms, head: terms.map(() => 0), body: terms.map((t) => counts.get(t)!), headLength: 0, bodyLength: stems.length };
}

/** A content word of a question with its stems in both languages (one, when they agree). */
export interface QueryWord {
  word: string;
  stems: string[];
}

/** A lowercase word's Snowball stems in English and in Spanish (one, when they agree): how a question's word is looked up. */
export function bothStems(word: string): string[] {
  return [...new Set([snowballStem(word, 'en'), snowballStem(word, 'es')])];
}

/** The distinct content words of a question, in order, each stemmed both ways. */
export function queryWords(text: string): QueryWord[] {
  const seen = new Set<string>();
  const out: QueryWord[] = [];
  for (const word of accentedWords(text)) {
    if (seen.has(word) || !isContent(word)) continue;
    seen.add(word);
    out.push({ word, stems: bothStems(word) });
  }
  return out;
}
