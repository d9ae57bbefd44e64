import type { Embedder } from '../ports.js';
import { stripPlural } from '../../text/stemmers.js';
import { isFunctionWord } from '../../text/stopwords.js';
import { words } from '../../text/words.js';

const DIMENSIONS = 256;

const FNV_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a state `h` carried over the code units of `text`. */
function fnv(h: number, text: string): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h;
}

// murmur3's finaliser over FNV-1a: FNV alone leaves the low bits poorly mixed.
function finish(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

// A feature is its kind's prefix ("w:", "b:", "c:") and its text. The features are hashed
// as they are read, without building their strings (those were a fifth of everything
// the pipeline allocated, D-1045): the FNV state after each prefix is computed once.
const WORD = fnv(FNV_BASIS, 'w:');
const PAIR = fnv(FNV_BASIS, 'b:');
const GRAM = fnv(FNV_BASIS, 'c:');
const OPEN = 0x3c; // "<" and ">" pad a word for its trigrams
const CLOSE = 0x3e;

/**
 * Masses of features by hash, in the order they first occur. Two different features
 * of a text must not share a mass, so a feature is known by its hash and a second,
 * independent one (a polynomial over the same code units, 21 bits of it): the 32 bits
 * of the hash alone are shared by two of a chunk's features in about one chunk in two
 * thousand; such a pair is kept apart in `overflow`, keyed by both hashes, and only a
 * pair alike in all 53 bits (about one chunk in four billion) would share a mass.
 */
class Features {
  readonly hashes: number[] = [];
  readonly masses: number[] = [];
  readonly #seconds: number[] = [];
  readonly #slots = new Map<number, number>();
  #overflow: Map<number, number> | undefined;

  add(fnvState: number, second: number, weight: number): void {
    const h = finish(fnvState);
    second &= 0x1fffff;
    let slot = this.#slots.get(h | 0);
    if (slot === undefined) this.#slots.set(h | 0, this.hashes.length);
    else if (this.#seconds[slot] !== second) {
      // Another feature holds this hash: this one is known by both.
      const key = h * 0x200000 + second;
      this.#overflow ??= new Map();
      slot = this.#overflow.get(key);
      if (slot === undefined) this.#overflow.set(key, this.hashes.length);
    }
    if (slot !== undefined) {
      this.masses[slot]! += weight;
      return;
    }
    this.hashes.push(h);
    this.masses.push(weight);
    this.#seconds.push(second);
  }
}

/** The second hash of `text`'s code units, continuing from `h`. */
function poly(h: number, text: string): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h, 31) + text.charCodeAt(i);
  return h;
}

/** Weighted features of a text: content words, pairs of neighbouring content words, and character trigrams. */
function featuresOf(text: string): Features {
  const all = words(text);
  let content = all.filter((w) => !isFunctionWord(w));
  // A text of stopwords only ("who are you?") still deserves a direction.
  if (content.length === 0) content = all;
  const features = new Features();
  let previous: string | undefined;
  for (const raw of content) {
    const word = stripPlural(raw);
    features.add(fnv(WORD, word), poly(1, word), 1);
    // `b:${previous} ${word}`, hashed in three steps.
    if (previous !== undefined) features.add(fnv(fnv(fnv(PAIR, previous), ' '), word), poly(poly(poly(2, previous), ' '), word), 0.5);
    previous = word;
    // The trigrams of `<raw>`, one code unit at a time.
    const grams = raw.length;
    const weight = 0.6 / Math.sqrt(grams);
    for (let i = 0; i < grams; i++) {
      let h = GRAM;
      let second = 3;
      for (let j = i; j < i + 3; j++) {
        const unit = j === 0 ? OPEN : j === raw.length + 1 ? CLOSE : raw.charCodeAt(j - 1);
        h = Math.imul(h ^ unit, FNV_PRIME);
        second = Math.imul(second, 31) + unit;
      }
      features.add(h, second, weight);
    }
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
  const { masses, hashes } = featuresOf(text);
  for (let f = 0; f < hashes.length; f++) {
    const h = hashes[f]!;
    const mass = masses[f]!;
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
