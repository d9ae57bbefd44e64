import type { ChunkAnalysis } from '../text/analyze.js';
import type { ChunkTerms } from './knowledge-index.js';

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const HEADER = 12;
const MAX_COUNT = 65_535;

/** A chunk's analysis with its terms replaced by their dictionary ids. */
export function chunkTerms(analysis: ChunkAnalysis, ids: ReadonlyMap<string, number>): ChunkTerms {
  const n = analysis.terms.length;
  const out: ChunkTerms = {
    ids: new Uint32Array(n),
    head: new Uint16Array(n),
    body: new Uint16Array(n),
    headLength: analysis.headLength,
    bodyLength: analysis.bodyLength,
  };
  analysis.terms.forEach((term, k) => {
    const id = ids.get(term);
    if (id === undefined) throw new Error(`term "${term}" has no id`);
    out.ids[k] = id;
    out.head[k] = Math.min(MAX_COUNT, analysis.head[k]!);
    out.body[k] = Math.min(MAX_COUNT, analysis.body[k]!);
  });
  return out;
}

/**
 * The bytes stored in `knowledge_chunks.terms`, little-endian: the term count and the
 * two field lengths (`Uint32` each), then the ids (`Uint32`), the heading counts and
 * the body counts (`Uint16`). Under 1 KB for a 500-token chunk.
 */
export function packTerms(terms: ChunkTerms): Uint8Array {
  const n = terms.ids.length;
  const bytes = new Uint8Array(HEADER + 8 * n);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, n, true);
  view.setUint32(4, Math.min(0xffffffff, terms.headLength), true);
  view.setUint32(8, Math.min(0xffffffff, terms.bodyLength), true);
  for (let k = 0; k < n; k++) {
    view.setUint32(HEADER + 4 * k, terms.ids[k]!, true);
    view.setUint16(HEADER + 4 * n + 2 * k, terms.head[k]!, true);
    view.setUint16(HEADER + 6 * n + 2 * k, terms.body[k]!, true);
  }
  return bytes;
}

/** The terms stored by `packTerms`; views over one aligned copy of the bytes when the platform allows. */
export function unpackTerms(stored: Uint8Array): ChunkTerms {
  const view = new DataView(stored.buffer, stored.byteOffset, stored.byteLength);
  const n = view.getUint32(0, true);
  const headLength = view.getUint32(4, true);
  const bodyLength = view.getUint32(8, true);
  if (stored.byteLength !== HEADER + 8 * n) throw new Error('stored terms of the wrong size');
  if (LITTLE_ENDIAN) {
    const bytes = stored.byteOffset % 4 === 0 ? stored : stored.slice();
    return {
      ids: new Uint32Array(bytes.buffer, bytes.byteOffset + HEADER, n),
      head: new Uint16Array(bytes.buffer, bytes.byteOffset + HEADER + 4 * n, n),
      body: new Uint16Array(bytes.buffer, bytes.byteOffset + HEADER + 6 * n, n),
      headLength,
      bodyLength,
    };
  }
  const out: ChunkTerms = { ids: new Uint32Array(n), head: new Uint16Array(n), body: new Uint16Array(n), headLength, bodyLength };
  for (let k = 0; k < n; k++) {
    out.ids[k] = view.getUint32(HEADER + 4 * k, true);
    out.head[k] = view.getUint16(HEADER + 4 * n + 2 * k, true);
    out.body[k] = view.getUint16(HEADER + 6 * n + 2 * k, true);
  }
  return out;
}
