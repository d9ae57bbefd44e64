/*
 * A scope's postings in about a third of their bytes, because a store reads a big value
 * slowly (decisions, D-308): per term, each chunk position as the gap from the previous
 * one (a LEB128 varint), then its two counts in one byte, or `ESCAPE` and two varints.
 * `starts[id]` is where term `id`'s list begins, so that a term is unpacked alone.
 */

/** Both counts in one byte when the heading count is under 15 and the body's under 16 (nearly always). */
const ESCAPE = 255;

export interface PackedPostings {
  /** Byte offset of each term's list, and the end (one more than the terms). */
  starts: Uint32Array;
  bytes: Uint8Array;
}

/**
 * Postings kept in the store in blocks (decisions, D-600): where each block starts, in
 * terms and in bytes (one more than the blocks), each block's CRC32, and how to read
 * blocks. A query reads the blocks of its terms only.
 */
export interface StoredPostings {
  starts: Uint32Array;
  firstTerms: Uint32Array;
  byteStarts: Uint32Array;
  crcs: Uint32Array;
  read(blocks: readonly number[]): Promise<Map<number, Uint8Array>>;
}

/** Stored bytes of an index that came back unlike they were written: it is built again (D-601). */
export class DamagedScopeIndex extends Error {
  constructor(what: string) {
    super(`stored scope index damaged: ${what}`);
    this.name = 'DamagedScopeIndex';
  }
}

/** One term's postings, unpacked. */
export interface TermPostings {
  docs: Uint32Array;
  head: Uint16Array;
  body: Uint16Array;
}

export function packPostings(offsets: Uint32Array, docs: Uint32Array, head: Uint16Array, body: Uint16Array): PackedPostings {
  let out = new Uint8Array(Math.max(16, docs.length * 3));
  const starts = new Uint32Array(offsets.length);
  let at = 0;
  const put = (value: number) => {
    while (value >= 0x80) {
      out[at++] = (value & 0x7f) | 0x80;
      value = Math.floor(value / 128);
    }
    out[at++] = value;
  };
  for (let id = 0; id + 1 < offsets.length; id++) {
    starts[id] = at;
    let previous = -1;
    for (let j = offsets[id]!; j < offsets[id + 1]!; j++) {
      if (at + 16 > out.length) {
        const grown = new Uint8Array(out.length * 2);
        grown.set(out);
        out = grown;
      }
      put(docs[j]! - previous - 1);
      previous = docs[j]!;
      const h = head[j]!;
      const b = body[j]!;
      if (h < 15 && b < 16) out[at++] = h * 16 + b;
      else {
        out[at++] = ESCAPE;
        put(h);
        put(b);
      }
    }
  }
  if (offsets.length) starts[offsets.length - 1] = at;
  return { starts, bytes: out.slice(0, at) };
}

/**
 * Where to cut packed postings into blocks of about `size` bytes, at term boundaries: the
 * first term id of each block, and each block's first byte (plus the end). A term
 * longer than `size` makes a block of its own size.
 */
export function postingBlocks(starts: Uint32Array, size: number): { firstTerms: Uint32Array; byteStarts: Uint32Array } {
  const firstTerms: number[] = [];
  const byteStarts: number[] = [];
  const terms = starts.length - 1;
  let blockStart = -1;
  for (let id = 0; id < terms; id++) {
    if (blockStart < 0 || starts[id]! - blockStart >= size) {
      blockStart = starts[id]!;
      firstTerms.push(id);
      byteStarts.push(blockStart);
    }
  }
  byteStarts.push(starts[terms] ?? 0);
  return { firstTerms: Uint32Array.from(firstTerms), byteStarts: Uint32Array.from(byteStarts) };
}

/**
 * The `count` postings of term `id`, or undefined when the bytes do not hold them.
 * `bytes` holds the packed postings from byte `base` on (a whole index's, or one block's).
 */
export function unpackTerm(packed: PackedPostings, id: number, count: number, base = 0): TermPostings | undefined {
  const out = { docs: new Uint32Array(count), head: new Uint16Array(count), body: new Uint16Array(count) };
  return unpackTermInto(packed, id, count, base, out, 0) ? out : undefined;
}

/**
 * `unpackTerm` written into `out` from entry `to` on, rather than into arrays of its
 * own: false when the bytes do not hold `count` postings. Making every term of a large
 * vocabulary makes no object per term (D-1156).
 */
export function unpackTermInto(packed: PackedPostings, id: number, count: number, base: number, out: TermPostings, to: number): boolean {
  const bytes = packed.bytes;
  const { docs, head, body } = out;
  const values = [0, 0, 0];
  let at = packed.starts[id]! - base;
  const end = packed.starts[id + 1]! - base;
  if (at < 0 || end > bytes.length) return false;
  let previous = -1;
  for (let j = 0; j < count; j++) {
    if (at + 2 > end) return false;
    const first = bytes[at]!;
    if (first < 0x80 && bytes[at + 1] !== ESCAPE) {
      const c = bytes[at + 1]!;
      at += 2;
      previous += first + 1;
      docs[to + j] = previous;
      head[to + j] = c >>> 4;
      body[to + j] = c & 15;
      continue;
    }
    // The general case: the gap's varint, then the counts' byte or ESCAPE and two varints.
    for (let k = 0; k < 3; k++) {
      let value = 0;
      let scale = 1;
      let byte: number;
      do {
        if (at >= end) return false;
        byte = bytes[at++]!;
        value += (byte & 0x7f) * scale;
        scale *= 128;
      } while (byte & 0x80);
      values[k] = value;
      if (k === 0) {
        if (at >= end) return false;
        const c = bytes[at++]!;
        if (c !== ESCAPE) {
          values[1] = c >>> 4;
          values[2] = c & 15;
          break;
        }
      }
    }
    previous += values[0]! + 1;
    docs[to + j] = previous;
    head[to + j] = values[1]!;
    body[to + j] = values[2]!;
  }
  return at === end;
}

/**
 * How many postings of each stored term `keep` accepts (a chunk position of the stored
 * index), reading every term from `blocks` (all of them, checked): what the terms' counts
 * become when chunks are dropped (decisions, D-610). Throws `DamagedScopeIndex` where
 * the bytes do not hold what the offsets say.
 */
export function keptCounts(
  stored: Pick<StoredPostings, 'starts' | 'firstTerms' | 'byteStarts'> & { offsets: Uint32Array; blocks: readonly Uint8Array[] },
  keep: Uint8Array,
): Uint32Array {
  const { offsets, starts, firstTerms, byteStarts, blocks } = stored;
  const terms = offsets.length - 1;
  const out = new Uint32Array(terms);
  let block = 0;
  for (let id = 0; id < terms; id++) {
    const count = offsets[id + 1]! - offsets[id]!;
    if (count === 0) continue;
    while (block + 1 < firstTerms.length && firstTerms[block + 1]! <= id) block++;
    out[id] = keptOfTerm(blocks[block]!, starts[id]! - byteStarts[block]!, starts[id + 1]! - byteStarts[block]!, count, keep);
    if (out[id]! > count) throw new DamagedScopeIndex(`postings of term ${id}`);
  }
  return out;
}

/** One term's kept postings, or more than `count` when the bytes do not hold `count` (a small function: V8 optimises it early). */
function keptOfTerm(bytes: Uint8Array, at: number, end: number, count: number, keep: Uint8Array): number {
  if (at < 0 || end > bytes.length) return count + 1;
  let kept = 0;
  let previous = -1;
  for (let j = 0; j < count; j++) {
    if (at + 2 > end) return count + 1;
    const first = bytes[at]!;
    if (first < 0x80 && bytes[at + 1] !== ESCAPE) {
      at += 2;
      previous += first + 1;
    } else {
      // The general case, as `unpackTerm` reads it: the gap, then the counts' byte or ESCAPE and two varints.
      for (let k = 0; k < 3; k++) {
        let value = 0;
        let scale = 1;
        let byte: number;
        do {
          if (at >= end) return count + 1;
          byte = bytes[at++]!;
          value += (byte & 0x7f) * scale;
          scale *= 128;
        } while (byte & 0x80);
        if (k === 0) {
          previous += value + 1;
          if (at >= end) return count + 1;
          if (bytes[at++] !== ESCAPE) break;
        }
      }
    }
    if (previous >= keep.length) return count + 1;
    kept += keep[previous]!;
  }
  return at === end ? kept : count + 1;
}

/**
 * A stored term's postings with the chunks `remap` sends to -1 dropped and the others
 * moved to `remap[position]`, merged with `added` (entries `from` to `to - 1`, already at
 * their new positions), into `count` entries. `remap` keeps the order of the chunks it
 * keeps, so the list stays ascending.
 */
export function remapTerm(old: TermPostings | undefined, remap: Int32Array, added: TermPostings & { from: number; to: number }, count: number): TermPostings {
  const out = { docs: new Uint32Array(count), head: new Uint16Array(count), body: new Uint16Array(count) };
  remapTermInto(old && { ...old, from: 0, to: old.docs.length }, remap, added, count, out, 0);
  return out;
}

/** `remapTerm` of `old`'s entries `from` to `to - 1`, written into `out` from entry `at` on (D-1156). */
export function remapTermInto(
  old: (TermPostings & { from: number; to: number }) | undefined,
  remap: Int32Array,
  added: TermPostings & { from: number; to: number },
  count: number,
  out: TermPostings,
  at: number,
): void {
  const { docs, head, body } = out;
  const end = at + count;
  let a = added.from;
  let n = at;
  for (let j = old ? old.from : 0; old && j < old.to; j++) {
    const to = remap[old.docs[j]!] ?? -1;
    if (to < 0) continue;
    for (; a < added.to && added.docs[a]! < to && n < end; a++, n++) {
      docs[n] = added.docs[a]!;
      head[n] = added.head[a]!;
      body[n] = added.body[a]!;
    }
    if (n >= end) throw new DamagedScopeIndex('postings longer than their count');
    docs[n] = to;
    head[n] = old.head[j]!;
    body[n] = old.body[j]!;
    n++;
  }
  for (; a < added.to && n < end; a++, n++) {
    docs[n] = added.docs[a]!;
    head[n] = added.head[a]!;
    body[n] = added.body[a]!;
  }
  if (n !== end || a !== added.to) throw new DamagedScopeIndex('postings not as many as their count');
}
