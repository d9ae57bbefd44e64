import { stemmer as englishStemmer } from '@orama/stemmers/english';
import { stemmer as spanishStemmer } from '@orama/stemmers/spanish';
import type { Language } from './language.js';
import { ONLY_ENGLISH, ONLY_SPANISH, SEARCH_STOPWORDS } from './search-words.js';
import { accentedWords, fold } from './words.js';

/*
 * Retrieval's text analysis (decisions, D-300): a chunk cut into blocks, each in the
 * language it is written in, its content words reduced to Snowball stems of that
 * language; headings (and the source's title) form a field of their own. A question is
 * too short to tell its language: each of its words is looked up under its stems in
 * both. Pure functions of the text: the same chunk analyses the same on every run.
 */

/**
 * Names this analysis. Stored with each chunk's terms: a chunk analysed by another
 * version (other stemmers, stop words or fields) is analysed again when it is read,
 * as a chunk embedded by another embedder is embedded again. Change it with the analysis.
 */
export const ANALYZER_ID = 'svc-blocks-snowball-1';

/** A word longer than this (a hash, base64) is kept whole: no stemmer knows it. */
const MAX_STEMMED = 40;
// Words repeat (Zipf): most stems come from here. Bounded so that a long-running
// process reading endless new words keeps a flat memory.
const STEM_CACHE = 200_000;
const stemCache: Record<Language, Map<string, string>> = { en: new Map(), es: new Map() };

/**
 * The Snowball stem of a lowercase word in `lang`, folded (`configuración` and
 * `configurar` give `configur`). English is `@orama/stemmers`' Porter stemmer, Spanish
 * its Snowball Spanish: one package serves both.
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

/** True for a folded word retrieval leaves out: a function word or a question's filler. */
export function isSearchStopword(folded: string): boolean {
  return SEARCH_STOPWORDS.has(folded);
}

/** Single letters say nothing; single digits may (a version, a runlevel). */
function isContent(folded: string): boolean {
  return !SEARCH_STOPWORDS.has(folded) && (folded.length > 1 || (folded >= '0' && folded <= '9'));
}

const SPANISH_MARKS = /[ñ¿¡áéíóú]/g;

/** Evidence for Spanish minus evidence for English (positive: Spanish). */
export function languageBalance(text: string): number {
  let es = 0;
  let en = 0;
  for (const w of accentedWords(text)) {
    const f = fold(w);
    if (ONLY_SPANISH.has(f)) es += 1;
    else if (ONLY_ENGLISH.has(f)) en += 1;
  }
  es += 0.5 * (text.toLowerCase().match(SPANISH_MARKS)?.length ?? 0);
  return es - en;
}

/** The language of a block: the function words only one language writes, and Spanish marks; `fallback` on a tie. */
export function blockLanguage(text: string, fallback: Language): Language {
  const balance = languageBalance(text);
  return balance > 0 ? 'es' : balance < 0 ? 'en' : fallback;
}

export interface TextBlock {
  text: string;
  /** A Markdown heading line (its `#` marks and section number dropped). */
  heading: boolean;
  lang: Language;
}

const HEADING = /^\s{0,3}#{1,6}\s/;
const HEADING_MARKS = /^\s{0,3}#{1,6}\s+/;
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
  const out: TextBlock[] = [];
  let body: string[] = [];
  const flush = () => {
    const text = body.join('\n').trim();
    if (text) out.push({ text, heading: false, lang: blockLanguage(text, fallback) });
    body = [];
  };
  for (const line of markdown.split('\n')) {
    if (HEADING.test(line)) {
      flush();
      const text = withoutNumbering(line.replace(HEADING_MARKS, ''));
      if (text) out.push({ text, heading: true, lang: blockLanguage(text, fallback) });
    } else if (line.trim() === '') flush();
    else body.push(line);
  }
  flush();
  return out;
}

/** The content stems of a text in one language, in order, repeats kept. */
export function searchStems(text: string, lang: Language): string[] {
  const out: string[] = [];
  for (const word of accentedWords(text)) if (isContent(fold(word))) out.push(snowballStem(word, lang));
  return out;
}

const FILE_EXTENSION = /(?:\.(?:en|es))?\.(?:html?|pdf|md|markdown|txt|csv|json|docx?)$/i;

/** The words of a title: a file name without its extension and language tag (`sect.quotas.es.html`: `sect.quotas`), without numbering. */
export function titleText(title: string): string {
  return withoutNumbering(title.trim().replace(FILE_EXTENSION, ''));
}

/**
 * A chunk's terms as stored: each distinct stem with its count in the heading field
 * (headings and the source's title) and in the body, and the two fields' lengths.
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
 * Analyses a chunk written (as a whole) in `fallback`, of a source named by `labels`:
 * its title, and for an upload its file name when that says something else (both are
 * words someone chose to name the document).
 */
export function analyzeChunk(text: string, labels: readonly string[], fallback: Language): ChunkAnalysis {
  const counts = new Map<string, [number, number]>();
  let headLength = 0;
  let bodyLength = 0;
  let spanish = 0;
  let english = 0;
  const add = (stems: string[], field: 0 | 1) => {
    for (const stem of stems) {
      let c = counts.get(stem);
      if (!c) counts.set(stem, (c = [0, 0]));
      c[field] += 1;
    }
    if (field === 0) headLength += stems.length;
    else bodyLength += stems.length;
  };
  const names = new Set(labels.map(titleText).filter(Boolean));
  for (const name of names) add(searchStems(name, blockLanguage(name, fallback)), 0);
  for (const block of textBlocks(text, fallback)) {
    const stems = searchStems(block.text, block.lang);
    add(stems, block.heading ? 0 : 1);
    if (block.lang === 'es') spanish += stems.length;
    else english += stems.length;
  }
  const terms = [...counts.keys()];
  return {
    lang: spanish > english ? 'es' : english > spanish ? 'en' : fallback,
    terms,
    head: terms.map((t) => counts.get(t)![0]),
    body: terms.map((t) => counts.get(t)![1]),
    headLength,
    bodyLength,
  };
}

/** A content word of a question with its stems in both languages (one, when they agree). */
export interface QueryWord {
  word: string;
  stems: string[];
}

/** The distinct content words of a question, in order, each stemmed both ways. */
export function queryWords(text: string): QueryWord[] {
  const seen = new Set<string>();
  const out: QueryWord[] = [];
  for (const word of accentedWords(text)) {
    if (seen.has(word) || !isContent(fold(word))) continue;
    seen.add(word);
    out.push({ word, stems: [...new Set([snowballStem(word, 'en'), snowballStem(word, 'es')])] });
  }
  return out;
}
