import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { IndexedChunk } from '../../src/knowledge/knowledge-index.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'knowledge');

/**
 * Fixed documents and what ingestion must make of them, on every run and every store.
 * A change here is a change of the pipeline's output: retrieval quality, cached chat
 * answers and stored vectors all depend on it, so it must be deliberate.
 */
export const GOLDEN = [
  {
    title: 'Customer handbook',
    text: readFileSync(join(FIXTURES, 'golden-handbook.md'), 'utf8'),
    expected: {
      lang: 'en',
      chunkCount: 3,
      tokenCount: 800,
      chunkTokens: [353, 328, 119],
      summary: 'Document "Customer handbook" covering bikes, repair and costs.',
      fingerprint: '42abb212dda4cb47794966d7b07c09f741ce28467ba82df4b70a5882c3e961ec',
    },
  },
  {
    title: 'Preguntas frecuentes',
    text: readFileSync(join(FIXTURES, 'golden-es.md'), 'utf8'),
    expected: {
      lang: 'es',
      chunkCount: 1,
      tokenCount: 148,
      chunkTokens: [148],
      summary: 'Document "Preguntas frecuentes" in Spanish covering payments (pago), shipping (envíos) and returns (devoluciones).',
      fingerprint: '85d8114f1d759eb462d14ae751a6f12155365c168568443b46a506a5e98f8ea7',
    },
  },
] as const;

/** SHA-256 over the chunks' texts, token counts and vector bytes, in order. */
export function fingerprint(chunks: IndexedChunk[]): string {
  const hash = createHash('sha256');
  for (const c of [...chunks].sort((a, b) => (a.chunkId < b.chunkId ? -1 : 1))) {
    hash
      .update(c.text)
      .update(`\n${c.tokenCount}\n`)
      .update(Buffer.from(c.vector.buffer, c.vector.byteOffset, c.vector.byteLength));
  }
  return hash.digest('hex');
}
