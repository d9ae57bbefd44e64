import type { Embedder } from '../ports.js';
import { stripPlural } from '../../text/stemmers.js';
import { isFunctionWord } from '../../text/stopwords.js';
import { words } from '../../text/words.js';

const DIMENSIONS = 256;

// murmur3's finaliser over FNV-1a: FNV alone leaves the low bits poorly mixed.
function hash(feature: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < feature.length; i++) {
    h ^= feature.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function add(features: Map<string, number>, feature: string, weight: number): void {
  features.set(feature, (features.get(feature) ?? 0) + weight);
}

/** Weighted features of a text: content words, pairs of neighbouring content words, and character trigrams. */
function featuresOf(text: string): Map<string, number> {
  const all = words(text);
  let content = all.filter((w) => !isFunctionWord(w));
  // A text of stopwords only ("who are you?") still deserves a direction.
  if (content.length === 0) content = all;
  const features = new Map<string, number>();
  let previous: string | undefined;
  for (const raw of content) {
    const word = stripPlural(raw);
    add(features, `w:${word}`, 1);
    if (previous !== undefined) add(features, `b:${previous} ${word}`, 0.5);
    previous = word;
    const padded = `<${raw}>`;
    const grams = padded.length - 2;
    const weight = 0.6 / Math.sqrt(grams);
    for (let i = 0; i < grams; i++) add(features, `c:${padded.slice(i, i + 3)}`, weight);
  }
  return features;
}

/**
 * One L2-normalised vector of `dimensions` values: each feature is hashed to a
 * dimension and a sign (the hashing trick), weighted by a sublinear term frequency.
 * A text without any word gives the zero vector.
 */
export function embedText(text: string, dimensions = DIMENSIONS): Float32Array {
  const acc = new Float64Array(dimensions);
  for (const [feature, mass] of featuresOf(text)) {
    const h = hash(feature);
    // Repeated features grow logarithmically: a word said ten times is not ten times the topic.
    const weight = mass >= 1 ? 1 + Math.log(mass) : mass;
    acc[h % dimensions]! += h & 0x80000000 ? -weight : weight;
  }
  let norm = 0;
  for (let i = 0; i < dimensions; i++) norm += acc[i]! * acc[i]!;
  const out = new Float32Array(dimensions);
  if (norm === 0) return out;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < dimensions; i++) out[i] = acc[i]! * scale;
  return out;
}

/**
 * The default embedder: deterministic hashed word and character n-grams (no model, no
 * network), language-neutral, so Spanish and English texts live in one space.
 */
export class HashingEmbedder implements Embedder {
  readonly id = `svc-hash-ngram-v1-${DIMENSIONS}`;
  readonly dimensions = DIMENSIONS;

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => embedText(t, this.dimensions));
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Little-endian Float32 bytes of a vector, as stored in `knowledge_chunks.embedding`. */
export function packVector(vector: Float32Array): Uint8Array {
  if (LITTLE_ENDIAN) return Buffer.from(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
  const out = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) out.writeFloatLE(vector[i]!, i * 4);
  return out;
}

/** The vector stored by `packVector`; a view without copying when the bytes allow it. */
export function unpackVector(bytes: Uint8Array): Float32Array {
  const length = bytes.byteLength >>> 2;
  if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, length);
  const out = new Float32Array(length);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
