import { crc32Bytes } from '../platform/crypto.js';
import type { Language } from '../text/language.js';
import type { LexicalParts } from './lexical-index.js';
import { packPostings, postingBlocks, type StoredPostings } from './postings-bytes.js';

/*
 * A built scope index as bytes for the store (decisions, D-308, D-600): a head value
 * holding a JSON header (chunk and source metadata, topic names and stems, where each
 * array lies) and the typed arrays as they sit in memory, each 4-byte aligned, so that
 * reading it back makes views, not copies; then the postings, packed (see
 * `postings-bytes.ts`) and cut into blocks of about `BLOCK_BYTES` at term boundaries,
 * one value each, read when a query first uses one of their terms. Every value carries
 * a CRC32 (the head its own, the blocks theirs in the head): bytes the store hands back
 * damaged are detected, and the index is built again from the chunks. Text and vectors
 * are left out: a restored index reads the few it needs from the store.
 */

const MAGIC = 'svc-scope-index-6';
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
/** Small enough that a query's few terms read little, big enough that a scope is a few hundred values. */
const BLOCK_BYTES = 64 * 1024;
/** Header length, then the CRC32 of everything after these 8 bytes. */
const PREFIX = 8;

export interface SourceMeta {
  sourceId: string;
  agentId: string | null;
  title: string;
  topics: string[];
  url?: string;
}

export interface ScopeIndexData {
  version: string;
  dims: number;
  sources: SourceMeta[];
  /** Per chunk, in scope order. */
  chunkIds: string[];
  chunkSources: ArrayLike<number>;
  langs: Language[];
  tokenCounts: ArrayLike<number>;
  lexical: LexicalParts;
  topics: { name: string; stems: string[]; members: Uint32Array; centroid: Float32Array }[];
  /** The dictionary's terms the scope uses, with their ids: all a query looks up. */
  terms: [string, number][];
  /**
   * The print of each of the scope's sources the version was made of, when known: an
   * index of a later version is made from this one by reading only the sources whose
   * print changed (D-610).
   */
  prints?: [sourceId: string, print: string][] | undefined;
}

/** What `encodeScopeIndex` needs besides the data: each topic's member vectors, quantised (see `quantise`). */
export type QuantisedTopics = QuantisedVectors[];

/**
 * Vectors in 8 bits (decisions, D-602): value `d` of vector `j` is about
 * `values[j * dims + d] * scales[j]`, off by at most half a scale step.
 */
export interface QuantisedVectors {
  scales: Float32Array;
  values: Int8Array;
}

/**
 * A decoded head: chunk ids and languages read per position when asked for, the
 * postings and quantised topic vectors described, still in the store.
 */
export type DecodedScopeIndex = Omit<ScopeIndexData, 'lexical' | 'chunkIds' | 'langs'> & {
  size: number;
  chunkId(position: number): string;
  lang(position: number): Language;
  lexical: Omit<LexicalParts, 'stored'> & { stored: Omit<StoredPostings, 'read'> };
  /** Per topic (in `topics` order), the block holding its members' quantised vectors and that block's CRC32. */
  topicBlocks: { block: number; crc: number }[];
};

/** `vectors` in 8 bits with a scale per vector: a fifth of their bytes (D-602). */
export function quantise(vectors: readonly Float32Array[], dims: number): QuantisedVectors {
  const scales = new Float32Array(vectors.length);
  const values = new Int8Array(vectors.length * dims);
  vectors.forEach((v, j) => {
    let max = 0;
    for (let d = 0; d < Math.min(dims, v.length); d++) max = Math.max(max, Math.abs(v[d]!));
    const scale = Math.fround(max / 127);
    scales[j] = scale;
    if (scale === 0) return;
    for (let d = 0; d < Math.min(dims, v.length); d++) values[j * dims + d] = Math.max(-127, Math.min(127, Math.round(v[d]! / scale)));
  });
  return { scales, values };
}

/** One topic's quantised vectors as a block: the scales, then the values. */
function topicBlock(q: QuantisedVectors): Uint8Array {
  const out = new Uint8Array(q.scales.byteLength + q.values.byteLength);
  out.set(new Uint8Array(q.scales.buffer, q.scales.byteOffset, q.scales.byteLength));
  out.set(new Uint8Array(q.values.buffer, q.values.byteOffset, q.values.byteLength), q.scales.byteLength);
  return out;
}

/** The quantised vectors of `members` members in a block `topicBlock` wrote, or undefined when the length is not theirs. */
export function readTopicBlock(block: Uint8Array, members: number, dims: number): QuantisedVectors | undefined {
  if (block.byteLength !== members * 4 + members * dims) return undefined;
  const bytes = block.byteOffset % 4 === 0 ? block : block.slice();
  return {
    scales: new Float32Array(bytes.buffer, bytes.byteOffset, members),
    values: new Int8Array(bytes.buffer, bytes.byteOffset + members * 4, members * dims),
  };
}

/** The values to store: the head, then blocks numbered from 0: the postings', then one per topic. */
export interface EncodedScopeIndex {
  head: Uint8Array;
  blocks: Uint8Array[];
}

type Typed = Uint32Array | Uint16Array | Float32Array | Uint8Array;
interface Header {
  magic: string;
  version: string;
  dims: number;
  sources: [string, string | null, string, string[], string | null][];
  size: number;
  vocabularySize: number;
  topics: [string, string[]][];
  /** The first topic block (one per topic, after the postings'). */
  topicBlocks: number;
  /** Kind and length of each array, in order: chunk id offsets and bytes, languages, the lexical ones, then members and centroid per topic. */
  arrays: ['u32' | 'u16' | 'f32' | 'u8', number][];
  terms: [string, number][];
  prints: [string, string][] | null;
}

/** Whether this platform writes and reads the format (its typed arrays are little-endian). */
export const canStoreScopeIndexes = LITTLE_ENDIAN;

const align = (n: number) => (n + 3) & ~3;

export function encodeScopeIndex(data: ScopeIndexData, quantised: QuantisedTopics): EncodedScopeIndex {
  const lex = data.lexical;
  if (!lex.docs || !lex.head || !lex.body) throw new Error('only a built index is encoded');
  const packed = packPostings(lex.offsets, lex.docs, lex.head, lex.body);
  const { firstTerms, byteStarts } = postingBlocks(packed.starts, BLOCK_BYTES);
  const blocks = Array.from(firstTerms, (_, b) => packed.bytes.subarray(byteStarts[b]!, byteStarts[b + 1]!));
  const topicBlocks = blocks.length;
  for (const q of quantised) blocks.push(topicBlock(q));
  const crcs = Uint32Array.from(blocks, (block) => crc32Bytes(block));
  // Chunk ids as UTF-8 with their offsets, a byte per language: read per position when
  // asked for, where JSON would parse 100,000 strings and an array of them.
  const encoder = new TextEncoder();
  const ids = data.chunkIds.map((id) => encoder.encode(id));
  const idStarts = new Uint32Array(ids.length + 1);
  ids.forEach((id, i) => (idStarts[i + 1] = idStarts[i]! + id.length));
  const chunkIds = new Uint8Array(idStarts[ids.length]!);
  ids.forEach((id, i) => chunkIds.set(id, idStarts[i]!));
  const langs = Uint8Array.from(data.langs, (l) => (l === 'es' ? 1 : 0));
  const arrays: Typed[] = [
    idStarts,
    chunkIds,
    langs,
    Uint32Array.from(data.chunkSources),
    Uint32Array.from(data.tokenCounts),
    lex.offsets,
    packed.starts,
    firstTerms,
    byteStarts,
    crcs,
    lex.headLengths,
    lex.bodyLengths,
    ...data.topics.flatMap((t) => [t.members, t.centroid]),
  ];
  const header: Header = {
    magic: MAGIC,
    version: data.version,
    dims: data.dims,
    sources: data.sources.map((s) => [s.sourceId, s.agentId, s.title, s.topics, s.url ?? null]),
    size: lex.size,
    vocabularySize: lex.vocabularySize,
    topics: data.topics.map((t) => [t.name, t.stems]),
    topicBlocks,
    arrays: arrays.map((a) => [a instanceof Uint32Array ? 'u32' : a instanceof Uint16Array ? 'u16' : a instanceof Float32Array ? 'f32' : 'u8', a.length]),
    terms: data.terms,
    prints: data.prints ?? null,
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  let size = align(PREFIX + json.length);
  for (const a of arrays) size += align(a.byteLength);
  const out = new Uint8Array(size);
  out.set(json, PREFIX);
  let at = align(PREFIX + json.length);
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += align(a.byteLength);
  }
  const view = new DataView(out.buffer);
  view.setUint32(0, json.length, true);
  view.setUint32(4, crc32Bytes(out.subarray(PREFIX)), true);
  return { head: out, blocks };
}

/**
 * The head `encodeScopeIndex` wrote, or undefined when `stored` is not one: another
 * format, or bytes that do not match their checksum or their own lengths.
 */
export function decodeScopeIndex(stored: Uint8Array): DecodedScopeIndex | undefined {
  // Views need 4-byte alignment: a value that does not start at one is copied once.
  const bytes = stored.byteOffset % 4 === 0 ? stored : stored.slice();
  if (bytes.byteLength < PREFIX) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, PREFIX);
  const length = view.getUint32(0, true);
  if (PREFIX + length > bytes.byteLength) return undefined;
  if (view.getUint32(4, true) !== crc32Bytes(bytes.subarray(PREFIX))) return undefined;
  let header: Header;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(PREFIX, PREFIX + length))) as Header;
  } catch {
    return undefined;
  }
  if (header.magic !== MAGIC) return undefined;
  let at = align(PREFIX + length);
  const arrays: Typed[] = [];
  for (const [kind, n] of header.arrays) {
    const width = kind === 'u8' ? 1 : kind === 'u16' ? 2 : 4;
    if (at + n * width > bytes.byteLength) return undefined;
    const offset = bytes.byteOffset + at;
    arrays.push(
      kind === 'u32'
        ? new Uint32Array(bytes.buffer, offset, n)
        : kind === 'u16'
          ? new Uint16Array(bytes.buffer, offset, n)
          : kind === 'f32'
            ? new Float32Array(bytes.buffer, offset, n)
            : new Uint8Array(bytes.buffer, offset, n),
    );
    at += align(n * width);
  }
  const [idStarts, chunkIdBytes, langs, chunkSources, tokenCounts, offsets, starts, firstTerms, byteStarts, crcs, headLengths, bodyLengths, ...topicArrays] =
    arrays;
  const postingBlocks = firstTerms?.length ?? 0;
  if (offsets?.length !== starts?.length || byteStarts?.length !== postingBlocks + 1) return undefined;
  if (header.topicBlocks !== postingBlocks || crcs?.length !== postingBlocks + header.topics.length) return undefined;
  const n = header.size;
  if (idStarts?.length !== n + 1 || idStarts[n] !== chunkIdBytes?.length || chunkSources?.length !== n || langs?.length !== n) return undefined;
  if (headLengths?.length !== n || bodyLengths?.length !== n || topicArrays.length !== 2 * header.topics.length) return undefined;
  const decoder = new TextDecoder();
  return {
    version: header.version,
    dims: header.dims,
    sources: header.sources.map(([sourceId, agentId, title, topics, url]) => ({ sourceId, agentId, title, topics, ...(url !== null && { url }) })),
    size: n,
    chunkId: (i) => decoder.decode(chunkIdBytes!.subarray(idStarts[i]!, idStarts[i + 1]!)),
    lang: (i) => (langs[i] === 1 ? 'es' : 'en'),
    chunkSources: chunkSources as Uint32Array,
    tokenCounts: tokenCounts as Uint32Array,
    lexical: {
      size: header.size,
      vocabularySize: header.vocabularySize,
      offsets: offsets as Uint32Array,
      stored: {
        starts: starts as Uint32Array,
        firstTerms: firstTerms as Uint32Array,
        byteStarts: byteStarts as Uint32Array,
        crcs: (crcs as Uint32Array).subarray(0, postingBlocks),
      },
      headLengths: headLengths as Uint32Array,
      bodyLengths: bodyLengths as Uint32Array,
    },
    topics: header.topics.map(([name, stems], k) => ({
      name,
      stems,
      members: topicArrays[2 * k] as Uint32Array,
      centroid: topicArrays[2 * k + 1] as Float32Array,
    })),
    terms: header.terms,
    prints: header.prints ?? undefined,
    topicBlocks: header.topics.map((_, k) => ({ block: postingBlocks + k, crc: (crcs as Uint32Array)[postingBlocks + k]! })),
  };
}
