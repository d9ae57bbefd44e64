/**
 * The approaches the runner measures, alone and combined. Each builds a retriever over
 * the chunks: a question in, the best chunk positions and a confidence out.
 */
import { topK, type Group } from './bm25f.js';
import type { Chunk } from './data.js';
import { LexicalRetriever, type LexicalOptions } from './lexical.js';

export type Retriever = (query: string, limit: number) => { positions: number[]; confidence: number };

export interface Approach {
  name: string;
  build(chunks: Chunk[]): Retriever;
}

/** BM25F with optional query expansion: the confidence is the best score over the query's idf mass. */
function lexical(options: LexicalOptions, expand?: (lex: LexicalRetriever) => (query: string, groups: Group[]) => Group[]): Approach['build'] {
  return (chunks) => {
    const lex = new LexicalRetriever(chunks, options);
    const widen = expand?.(lex);
    const unseen = Math.log(1 + (lex.index.size + 0.5) / 0.5);
    return (query, limit) => {
      let groups = lex.groups(query);
      const missing = groups.filter((g) => g.length === 0).length;
      if (widen) groups = widen(query, groups);
      const { scores, ceiling } = lex.index.score(groups);
      const positions = topK(scores, limit);
      const best = positions.length ? scores[positions[0]!]! : 0;
      return { positions, confidence: best / Math.max(1e-9, ceiling + missing * unseen) };
    };
  };
}

export const APPROACHES: Approach[] = [
  { name: 'bm25 chunk-lang', build: lexical({ langMode: 'chunk', headings: false }) },
  { name: 'bm25 both-stems', build: lexical({ langMode: 'both', headings: false }) },
  { name: 'bm25 block-lang', build: lexical({ langMode: 'block', headings: false }) },
  { name: 'bm25f head x2', build: lexical({ langMode: 'block', headWeight: 2 }) },
  { name: 'bm25f head x3', build: lexical({ langMode: 'block', headWeight: 3 }) },
  { name: 'bm25f head x5', build: lexical({ langMode: 'block', headWeight: 5 }) },
];
