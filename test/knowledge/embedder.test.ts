import { describe, expect, it } from 'vitest';
import { embedText, HashingEmbedder, packVector, unpackVector } from '../../src/knowledge/pipeline/embedder.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(dot(a, a));

describe('the hashing embedder', () => {
  const embedder = new HashingEmbedder();

  it('gives 256 L2-normalised values per text, in order, and says which embedder it is', async () => {
    const vectors = await embedder.embed(['opening hours', 'refund policy', 'horarios de apertura']);
    expect(embedder.id).toBe('svc-hash-ngram-v1-256');
    expect(embedder.dimensions).toBe(256);
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(256);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
  });

  it('is deterministic: the same text gives the same bits', () => {
    const text = 'Returns are accepted within thirty days of delivery.';
    expect(Buffer.from(packVector(embedText(text)))).toEqual(Buffer.from(packVector(embedText(text))));
  });

  it('puts texts about the same thing closer than unrelated ones, across accents and plurals', () => {
    const query = embedText('refund for a returned bicycle');
    const related = embedText('Refunds are paid when a bicycle is returned within thirty days.');
    const unrelated = embedText('The café opens at nine and serves breakfast until noon.');
    expect(dot(query, related)).toBeGreaterThan(dot(query, unrelated) + 0.2);
    expect(dot(embedText('cafe menu'), embedText('Café menú'))).toBeCloseTo(1, 5);
    expect(dot(embedText('price'), embedText('prices'))).toBeGreaterThan(0.8);
  });

  it('gives stopword-only questions a direction, and the zero vector to text without words', () => {
    expect(norm(embedText('who are you?'))).toBeCloseTo(1, 5);
    expect(Array.from(embedText('!!! ---'))).toEqual(new Array(256).fill(0));
  });

  it('stores vectors as little-endian Float32 bytes and reads them back at any byte offset', () => {
    const v = embedText('bytes on disk');
    const packed = packVector(v);
    expect(packed.byteLength).toBe(1024);
    expect(Buffer.from(packed).readFloatLE(4)).toBe(v[1]);
    expect(Array.from(unpackVector(packed))).toEqual(Array.from(v));
    const shifted = new Uint8Array(packed.byteLength + 1);
    shifted.set(packed, 1);
    expect(Array.from(unpackVector(shifted.subarray(1)))).toEqual(Array.from(v));
  });
});
