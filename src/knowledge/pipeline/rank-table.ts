/*
 * o200k_base's vocabulary as one binary table the bundle writes at build time (decisions,
 * D-1214): a thread that counts tokens reads it as it is, where gpt-tokenizer would
 * build a `Map` of its 198,427 string tokens from the ranks (and the ranks from JSON
 * or its module of them) in every thread, a quarter of a second each. The table is an
 * open-addressing hash of the tokens' UTF-16 code units; a lookup answers what the
 * package's `Map` answers, so counts and tokens are the package's own.
 *
 * Layout, 32-bit words in the platform's byte order (a table read on a machine of the
 * other order fails its magic number, and the package's own ranks are read instead), then
 * the code units, then the bytes:
 *   [magic, strings, slots, units, binaries, binaryBytes]
 *   offsets[strings + 1]   where each string token's code units start in `units`
 *   ranks[strings]         each string token's rank
 *   slots[slots]           string token index + 1, 0 for an empty slot
 *   binaryRanks[binaries]  the ranks of the tokens that are no UTF-8 text on their own
 *   binaryOffsets[binaries + 1]
 *   units[units]           (16-bit; padded to a word)
 *   bytes[binaryBytes]
 */

/** Where the bundle keeps the table (`emulator/bundle.mjs` writes it); sources and `tsc`'s output have none. */
export const RANK_TABLE_FILE = 'o200k_base.ranks.bin';

const MAGIC = 0x6f32_3030; // "o200"
const HEADER_WORDS = 6;

/** A vocabulary as gpt-tokenizer's ranks give it: at each rank a token's text, or its bytes when they are no UTF-8 text. */
export type Ranks = readonly (string | readonly number[] | undefined)[];

const FNV_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function hashOf(text: string): number {
  let h = FNV_BASIS;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  // murmur3's finaliser: FNV alone leaves the low bits (the slot) poorly mixed.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The lengths of the table's word arrays after its header, in order: offsets, ranks, slots, binary ranks, binary offsets. */
function lengths(strings: number, slots: number, binaries: number): number[] {
  return [strings + 1, strings, slots, binaries, binaries + 1];
}

/** `words` from the header on, cut into consecutive arrays of `sizes`. */
function cut(words: Uint32Array, sizes: readonly number[]): Uint32Array[] {
  let at = HEADER_WORDS;
  return sizes.map((size) => {
    const part = words.subarray(at, at + size);
    at += size;
    return part;
  });
}

/** `ranks` as the table's bytes (`emulator/bundle.mjs` writes them beside the bundle). */
export function encodeRankTable(ranks: Ranks): Uint8Array {
  const strings: [string, number][] = [];
  const binaries: [readonly number[], number][] = [];
  ranks.forEach((value, rank) => {
    if (typeof value === 'string') strings.push([value, rank]);
    else if (value) binaries.push([value, rank]);
  });
  let slots = 1;
  while (slots < strings.length * 2.5) slots *= 2;
  const units = strings.reduce((n, [text]) => n + text.length, 0);
  const binaryBytes = binaries.reduce((n, [bytes]) => n + bytes.length, 0);
  const sizes = lengths(strings.length, slots, binaries.length);
  const words = HEADER_WORDS + sizes.reduce((a, b) => a + b, 0);
  const unitWords = Math.ceil(units / 2);
  const out = new Uint8Array((words + unitWords) * 4 + binaryBytes);
  const w = new Uint32Array(out.buffer, 0, words);
  w.set([MAGIC, strings.length, slots, units, binaries.length, binaryBytes]);
  const [offsets, rankOf, table, binaryRanks, binaryOffsets] = cut(w, sizes) as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
  const text = new Uint16Array(out.buffer, words * 4, units);
  let unit = 0;
  strings.forEach(([token, rank], i) => {
    offsets[i] = unit;
    for (let k = 0; k < token.length; k++) text[unit++] = token.charCodeAt(k);
    rankOf[i] = rank;
    let slot = hashOf(token) & (slots - 1);
    while (table[slot] !== 0) slot = (slot + 1) & (slots - 1);
    table[slot] = i + 1;
  });
  offsets[strings.length] = unit;
  const bytes = out.subarray((words + unitWords) * 4);
  let byte = 0;
  binaries.forEach(([value, rank], i) => {
    binaryRanks[i] = rank;
    binaryOffsets[i] = byte;
    bytes.set(value, byte);
    byte += value.length;
  });
  binaryOffsets[binaries.length] = byte;
  return out;
}

/** Lexicographic, then shorter first: the order gpt-tokenizer sorts its binary tokens in (`compareUint8Arrays`). */
function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** The table read in place: `get` is the lookup gpt-tokenizer does in its `Map` of string tokens. */
export class RankTable {
  readonly #offsets: Uint32Array;
  readonly #ranks: Uint32Array;
  readonly #slots: Uint32Array;
  readonly #units: Uint16Array;
  readonly #mask: number;
  /** The tokens that are no UTF-8 text on their own, as gpt-tokenizer keeps them: sorted by bytes, with their ranks. */
  readonly binaries: [Uint8Array, number][];

  private constructor(bytes: Uint8Array) {
    // A typed array's view needs its offset aligned: a Buffer from a file may not be.
    const own = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
    const head = new Uint32Array(own.buffer, own.byteOffset, HEADER_WORDS);
    const [magic, strings, slots, units, binaries] = head as unknown as number[];
    if (magic !== MAGIC || !strings || !slots || (slots & (slots - 1)) !== 0) throw new RangeError('not an o200k_base rank table');
    const sizes = lengths(strings, slots, binaries!);
    const words = HEADER_WORDS + sizes.reduce((a, b) => a + b, 0);
    const [offsets, ranks, table, binaryRanks, binaryOffsets] = cut(new Uint32Array(own.buffer, own.byteOffset, words), sizes) as [
      Uint32Array,
      Uint32Array,
      Uint32Array,
      Uint32Array,
      Uint32Array,
    ];
    this.#offsets = offsets;
    this.#ranks = ranks;
    this.#slots = table;
    this.#units = new Uint16Array(own.buffer, own.byteOffset + words * 4, units!);
    this.#mask = slots - 1;
    const bytesAt = own.byteOffset + (words + Math.ceil(units! / 2)) * 4;
    this.binaries = Array.from({ length: binaries! }, (_, i): [Uint8Array, number] => [
      new Uint8Array(own.buffer, bytesAt + binaryOffsets[i]!, binaryOffsets[i + 1]! - binaryOffsets[i]!),
      binaryRanks[i]!,
    ]).sort((a, b) => compareBytes(a[0], b[0]));
  }

  /** The table in `bytes` (copied only when they are not word-aligned), or undefined when they hold none (another byte order, a truncated file). */
  static read(bytes: Uint8Array): RankTable | undefined {
    try {
      return new RankTable(bytes);
    } catch (error) {
      if (error instanceof RangeError) return undefined;
      throw error;
    }
  }

  /** String tokens in the table. */
  get size(): number {
    return this.#ranks.length;
  }

  /** The rank of the string token `key`, or undefined. */
  get(key: string): number | undefined {
    const units = this.#units;
    const offsets = this.#offsets;
    const n = key.length;
    for (let slot = hashOf(key) & this.#mask; ; slot = (slot + 1) & this.#mask) {
      const entry = this.#slots[slot]!;
      if (entry === 0) return undefined;
      const start = offsets[entry - 1]!;
      if (offsets[entry]! - start !== n) continue;
      let i = 0;
      while (i < n && units[start + i] === key.charCodeAt(i)) i++;
      if (i === n) return this.#ranks[entry - 1];
    }
  }

  /** Every token by rank, as gpt-tokenizer's ranks hold them (for decoding; built on demand). */
  ranks(): (string | Uint8Array)[] {
    const out: (string | Uint8Array)[] = [];
    for (let i = 0; i < this.#ranks.length; i++) {
      out[this.#ranks[i]!] = String.fromCharCode(...this.#units.subarray(this.#offsets[i]!, this.#offsets[i + 1]!));
    }
    for (const [bytes, rank] of this.binaries) out[rank] = bytes;
    return out;
  }
}
