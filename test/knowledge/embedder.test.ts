import { describe, expect, it } from 'vitest';
import { embedText, HashingEmbedder, packVector, unpackVector } from '../../src/knowledge/pipeline/embedder.js';
import { stripPlural } from '../../src/text/stemmers.js';
import { isFunctionWord } from '../../src/text/stopwords.js';
import { words } from '../../src/text/words.js';

// The embedder as first written (each feature a string, hashed, its mass kept by string):
// the vectors it stored must stay the ones a query meets (the embedder's id did not change).
function featureHash(feature: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < feature.length; i++) h = Math.imul(h ^ feature.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
function referenceVector(text: string): Float32Array {
  const all = words(text);
  let content = all.filter((w) => !isFunctionWord(w));
  if (content.length === 0) content = all;
  const features = new Map<string, number>();
  const add = (f: string, w: number) => features.set(f, (features.get(f) ?? 0) + w);
  let previous: string | undefined;
  for (const raw of content) {
    const word = stripPlural(raw);
    add(`w:${word}`, 1);
    if (previous !== undefined) add(`b:${previous} ${word}`, 0.5);
    previous = word;
    const padded = `<${raw}>`;
    for (let i = 0; i < padded.length - 2; i++) add(`c:${padded.slice(i, i + 3)}`, 0.6 / Math.sqrt(padded.length - 2));
  }
  const acc = new Float64Array(256);
  for (const [feature, mass] of features) {
    const h = featureHash(feature);
    const weight = mass >= 1 ? 1 + Math.log(mass) : mass;
    acc[h % 256]! += h & 0x80000000 ? -weight : weight;
  }
  const norm = Math.sqrt(acc.reduce((sum, x) => sum + x * x, 0));
  return Float32Array.from(acc, (x) => (norm === 0 ? 0 : x / norm));
}

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

  it('gives the bits the string-keyed embedder stored, also when two different features share a 32-bit hash', () => {
    // Two words whose "w:" features hash alike: their masses must stay apart (1 + 1, not 1 + log 2).
    expect(featureHash('w:hxkqtem')).toBe(featureHash('w:kvdvlagbk'));
    const texts = [
      'hxkqtem kvdvlagbk hxkqtem',
      'Returns are accepted within thirty days of delivery; returns of returns.',
      'Para instalar paquetes, use apt-get install; después reinicie el servicio.',
      'über straße ñandú 😀 emoji 𝒳 x'.repeat(3),
      'who are you?',
      'a'.repeat(300),
    ];
    for (const text of texts) expect(Buffer.from(packVector(embedText(text)))).toEqual(Buffer.from(packVector(referenceVector(text))));
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
