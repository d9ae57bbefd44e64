import type { Language } from '../text/language.js';
import type { LexicalParts } from './lexical-index.js';
import { packPostings } from './postings-bytes.js';

/*
 * A built scope index as one value of bytes (decisions, D-308): a JSON header (chunk
 * and source metadata, topic names and stems, where each array lies) followed by the
 * typed arrays as they sit in memory, each 4-byte aligned, so that reading it back
 * makes views, not copies, and builds nothing; the postings packed (see
 * `postings-bytes.ts`) and unpacked per term when a query first uses it. Text and
 * vectors are left out: a restored index reads the few it needs from the store.
 */

const MAGIC = 'svc-scope-index-2';
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

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
}

type Typed = Uint32Array | Uint16Array | Float32Array | Uint8Array;
interface Header {
  magic: string;
  version: string;
  dims: number;
  sources: [string, string | null, string, string[], string | null][];
  /** Chunk ids joined by newlines (one string parses faster than 100,000). */
  chunkIds: string;
  langs: string;
  size: number;
  vocabularySize: number;
  topics: [string, string[]][];
  /** Kind and length of each array, in order: the lexical ones, then members and centroid per topic. */
  arrays: ['u32' | 'u16' | 'f32' | 'u8', number][];
  terms: [string, number][];
}

/** Whether this platform writes and reads the format (its typed arrays are little-endian). */
export const canStoreScopeIndexes = LITTLE_ENDIAN;

const align = (n: number) => (n + 3) & ~3;

export function encodeScopeIndex(data: ScopeIndexData): Uint8Array {
  const lex = data.lexical;
  const packed = lex.packed ?? packPostings(lex.offsets, lex.docs!, lex.head!, lex.body!);
  const arrays: Typed[] = [
    Uint32Array.from(data.chunkSources), Uint32Array.from(data.tokenCounts),
    lex.offsets, packed.starts, packed.bytes, lex.headNorm, lex.bodyNorm, ...data.topics.flatMap((t) => [t.members, t.centroid]),
  ];
  const header: Header = {
    magic: MAGIC,
    version: data.version,
    dims: data.dims,
    sources: data.sources.map((s) => [s.sourceId, s.agentId, s.title, s.topics, s.url ?? null]),
    chunkIds: data.chunkIds.join('\n'),
    langs: data.langs.map((l) => (l === 'es' ? 's' : 'e')).join(''),
    size: lex.size,
    vocabularySize: lex.vocabularySize,
    topics: data.topics.map((t) => [t.name, t.stems]),
    arrays: arrays.map((a) => [a instanceof Uint32Array ? 'u32' : a instanceof Uint16Array ? 'u16' : a instanceof Float32Array ? 'f32' : 'u8', a.length]),
    terms: data.terms,
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  let size = align(4 + json.length);
  for (const a of arrays) size += align(a.byteLength);
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, json.length, true);
  out.set(json, 4);
  let at = align(4 + json.length);
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += align(a.byteLength);
  }
  return out;
}

/** The index `encodeScopeIndex` wrote, or undefined when `stored` is not one (another format). */
export function decodeScopeIndex(stored: Uint8Array): ScopeIndexData | undefined {
  // Views need 4-byte alignment: a value that does not start at one is copied once.
  const bytes = stored.byteOffset % 4 === 0 ? stored : stored.slice();
  if (bytes.byteLength < 4) return undefined;
  const length = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
  if (4 + length > bytes.byteLength) return undefined;
  let header: Header;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length))) as Header;
  } catch {
    return undefined;
  }
  if (header.magic !== MAGIC) return undefined;
  let at = align(4 + length);
  const arrays: Typed[] = [];
  for (const [kind, n] of header.arrays) {
    const width = kind === 'u8' ? 1 : kind === 'u16' ? 2 : 4;
    if (at + n * width > bytes.byteLength) return undefined;
    const offset = bytes.byteOffset + at;
    arrays.push(
      kind === 'u32' ? new Uint32Array(bytes.buffer, offset, n)
        : kind === 'u16' ? new Uint16Array(bytes.buffer, offset, n)
          : kind === 'f32' ? new Float32Array(bytes.buffer, offset, n)
            : new Uint8Array(bytes.buffer, offset, n),
    );
    at += align(n * width);
  }
  const [chunkSources, tokenCounts, offsets, starts, packed, headNorm, bodyNorm, ...topicArrays] = arrays;
  if (offsets?.length !== starts?.length) return undefined;
  const chunkIds = header.size ? header.chunkIds.split('\n') : [];
  if (chunkIds.length !== header.size || chunkSources?.length !== header.size) return undefined;
  return {
    version: header.version,
    dims: header.dims,
    sources: header.sources.map(([sourceId, agentId, title, topics, url]) => ({ sourceId, agentId, title, topics, ...(url !== null && { url }) })),
    chunkIds,
    chunkSources: chunkSources as Uint32Array,
    langs: [...header.langs].map((c) => (c === 's' ? 'es' : 'en')),
    tokenCounts: tokenCounts as Uint32Array,
    lexical: {
      size: header.size, vocabularySize: header.vocabularySize,
      offsets: offsets as Uint32Array, packed: { starts: starts as Uint32Array, bytes: packed as Uint8Array },
      headNorm: headNorm as Float32Array, bodyNorm: bodyNorm as Float32Array,
    },
    topics: header.topics.map(([name, stems], k) => ({ name, stems, members: topicArrays[2 * k] as Uint32Array, centroid: topicArrays[2 * k + 1] as Float32Array })),
    terms: header.terms,
  };
}
