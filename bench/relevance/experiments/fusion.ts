/**
 * The dense side and rank fusion: the emulator's own hashed n-gram vectors (the default
 * embedder, no model), and reciprocal rank fusion of a lexical and a vector ranking.
 */
import { embedText } from '../../../src/knowledge/pipeline/embedder.js';
import { topK } from './bm25f.js';
import type { Chunk } from './data.js';

export class DenseIndex {
  readonly #vectors: Float32Array[];

  constructor(chunks: Chunk[]) {
    this.#vectors = chunks.map((c) => embedText(c.text));
  }

  scores(query: string): Float64Array {
    const q = embedText(query);
    const out = new Float64Array(this.#vectors.length);
    this.#vectors.forEach((v, i) => {
      let s = 0;
      for (let d = 0; d < v.length; d++) s += v[d]! * q[d]!;
      out[i] = s;
    });
    return out;
  }
}

/** Reciprocal rank fusion (k = 60, the usual constant) of rankings given as best-first positions. */
export function rrf(rankings: { positions: number[]; weight: number }[], limit: number, k = 60): number[] {
  const score = new Map<number, number>();
  for (const { positions, weight } of rankings) positions.forEach((p, r) => score.set(p, (score.get(p) ?? 0) + weight / (k + r + 1)));
  return [...score]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, limit)
    .map(([p]) => p);
}

export { topK };
