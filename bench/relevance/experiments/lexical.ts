/**
 * The lexical retriever of the experiments: chunks analysed into heading and body stems
 * (each block stemmed in its own language), BM25F over them, and a query of word groups
 * that expansions may widen.
 */
import { blocks, detect, queryWords, stems, type Lang } from './analyze.js';
import { Bm25fIndex, DEFAULT_BM25F, type Bm25fOptions, type Group } from './bm25f.js';
import type { Chunk } from './data.js';

export interface LexicalOptions extends Partial<Bm25fOptions> {
  /**
   * `chunk`: every word stemmed in the language the emulator gave the chunk (today's
   * labelling). `block`: each paragraph in its own detected language. `both`: every
   * word indexed under its stems in both languages.
   */
  langMode?: 'chunk' | 'block' | 'both';
  /** Treat Markdown heading lines as a field of their own (else they are body text). */
  headings?: boolean;
  /**
   * Add the source's title (a file name's words without its extension) to the heading
   * field. `heading`: the chunk's first heading instead, a control for what file names
   * bring (the development set's file names carry English anchors into Spanish documents).
   */
  title?: boolean | 'heading';
}

export interface AnalysedChunk {
  head: string[];
  body: string[];
  /** Share of the chunk's words in Spanish blocks. */
  spanish: number;
}

export function analyse(chunk: Chunk, options: LexicalOptions): AnalysedChunk {
  const mode = options.langMode ?? 'block';
  const head: string[] = [];
  const body: string[] = [];
  let es = 0;
  let all = 0;
  const own = blocks(chunk.text, chunk.lang);
  const title = options.title === 'heading' ? (own.find((b) => b.heading)?.text ?? '') : options.title ? titleWords(chunk.title) : '';
  const titled = title ? [{ text: title, heading: true, lang: detect(title, chunk.lang) }] : [];
  for (const block of [...titled, ...own]) {
    const lang: Lang = mode === 'chunk' ? chunk.lang : block.lang;
    const into = options.headings !== false && block.heading ? head : body;
    const terms = mode === 'both' ? bothStems(block.text) : stems(block.text, lang);
    into.push(...terms);
    all += terms.length;
    if (block.lang === 'es') es += terms.length;
  }
  return { head, body, spanish: all ? es / all : 0 };
}

function bothStems(text: string): string[] {
  const en = stems(text, 'en');
  const es = stems(text, 'es');
  const out: string[] = [];
  en.forEach((t, i) => {
    out.push(t);
    if (es[i] !== t) out.push(es[i]!);
  });
  return out;
}

export class LexicalRetriever {
  readonly index: Bm25fIndex;
  readonly analysed: AnalysedChunk[];

  constructor(
    readonly chunks: Chunk[],
    readonly options: LexicalOptions = {},
  ) {
    this.analysed = chunks.map((c) => analyse(c, options));
    this.index = Bm25fIndex.build(this.analysed, { ...DEFAULT_BM25F, ...options });
  }

  /** The query's groups: one per content word, its stems in both languages as alternatives (none: a word the knowledge never uses). */
  groups(query: string): Group[] {
    return queryWords(query).map(({ stems: s }) => s.filter((t) => this.index.has(t)).map((term) => ({ term, weight: 1 })));
  }

  /** Language of the question (for the answer's preference, not for matching). */
  queryLang(query: string): Lang {
    return detect(query, 'en');
  }
}

/** A title's words; a file name loses its extension and language tag (`sect.quotas.es.html`: `sect quotas`). */
export function titleWords(title: string): string {
  return title.replace(/(\.(en|es))?\.(html?|pdf|md|txt|docx?)$/i, '').replace(/[._-]+/g, ' ');
}
