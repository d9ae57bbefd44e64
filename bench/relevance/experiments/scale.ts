/**
 * Latency at scale: the corpus's chunks copied until there are `size` of them (each copy
 * with a word of its own, so that copies are not identical), then the cost of analysing
 * them (done once per chunk, at ingestion, if the terms are stored), of assembling the
 * index from analysed chunks (the first query of a scope), and of a query.
 */
import { performance } from 'node:perf_hooks';
import { fmt, percentile } from '../../support.js';
import type { Question } from '../metrics.js';
import { Bm25fIndex, DEFAULT_BM25F, Dictionary, type StoredChunk } from './bm25f.js';
import type { Chunk } from './data.js';
import type { Expander } from './expand.js';
import { analyse, LexicalRetriever, type AnalysedChunk, type LexicalOptions } from './lexical.js';

export function measureScale(
  chunks: Chunk[],
  questions: Question[],
  size: number,
  options: LexicalOptions,
  expand?: (lex: LexicalRetriever) => Expander,
): void {
  const copies = Math.ceil(size / chunks.length);
  const t0 = performance.now();
  const base = chunks.map((c) => analyse(c, options));
  const analyseMs = ((performance.now() - t0) / chunks.length) * size;
  const analysed: AnalysedChunk[] = [];
  for (let k = 0; k < copies && analysed.length < size; k++) {
    for (const a of base) {
      if (analysed.length === size) break;
      analysed.push({ head: a.head, body: k ? [...a.body, `copy${k}`] : a.body, spanish: a.spanish });
    }
  }
  // What ingestion would store with each chunk: its term ids and counts.
  const dictionary = new Dictionary();
  const stored: StoredChunk[] = analysed.map((a) => dictionary.store(a));
  const b0 = performance.now();
  const index = new Bm25fIndex(stored, dictionary, { ...DEFAULT_BM25F, ...options });
  const buildMs = performance.now() - b0;
  // The retriever over the real chunks gives the query groups (same vocabulary).
  const lex = new LexicalRetriever(chunks, options);
  const widen = expand?.(lex);
  const ms: number[] = [];
  for (let round = 0; round < 2; round++) {
    for (const q of questions) {
      const s0 = performance.now();
      let groups = lex.groups(q.text);
      if (widen) groups = widen(q.text, groups);
      index.search(groups, 10);
      if (round) ms.push(performance.now() - s0);
    }
  }
  const heap = process.memoryUsage().heapUsed / 2 ** 20;
  console.log(
    `  at ${size.toLocaleString('en')} chunks: analysing every chunk ${fmt(analyseMs / 1000)} s (once per chunk, at ingestion, when the terms are stored); ` +
      `assembling the index from stored terms ${fmt(buildMs, 0)} ms; query p50 ${fmt(percentile(ms, 50), 1)} ms, p95 ${fmt(percentile(ms, 95), 1)} ms; heap ${fmt(heap, 0)} MiB`,
  );
}
