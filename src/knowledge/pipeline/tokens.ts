import { readFile } from 'node:fs/promises';
import { RANK_TABLE_FILE, RankTable } from './rank-table.js';

/** Token counts with a real BPE tokenizer (o200k_base, the GPT-4o family's). */
export interface Tokenizer {
  readonly name: string;
  count(text: string): number;
}

let loading: Promise<Tokenizer> | undefined;

/**
 * Text such as "<|endoftext|>" is text, not a control token: in a document counted, and
 * in a chat reply cut into tokens (D-1075), where the encoder's default throws on it.
 */
export const AS_TEXT = { disallowedSpecial: new Set<string>() };

// BPE merging is quadratic in the length of one run without spaces: 200,000 letters
// in a row would take minutes. Runs that long (hashes, base64, junk) are counted in
// slices, which changes their count by a token or two and nothing else.
const LONG_RUN = /\S{257,}/g;
const SLICE = 256;

function sliced(count: (text: string) => number, text: string): number {
  // Most texts counted (a block, a sentence) are too short to hold such a run.
  if (text.length <= SLICE) return count(text);
  let total = 0;
  let last = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    total += count(text.slice(last, match.index));
    const run = match[0];
    for (let i = 0; i < run.length; ) {
      let end = Math.min(run.length, i + SLICE);
      // Never split a surrogate pair.
      if (end < run.length && /[\uD800-\uDBFF]/.test(run[end - 1]!)) end -= 1;
      total += count(run.slice(i, end));
      i = end;
    }
    last = match.index + run.length;
  }
  return total + count(text.slice(last));
}

/** What the service uses of gpt-tokenizer's o200k_base API: counting, and cutting a reply into tokens. */
export interface Encoding {
  countTokens(text: string, options: typeof AS_TEXT): number;
  encode(text: string, options: typeof AS_TEXT): number[];
  decodeGenerator(tokens: Iterable<number>): Generator<string, void, void>;
}

/** What `bounded` needs of gpt-tokenizer's encoding object beyond `Encoding`. */
interface MergeCached extends Encoding {
  setMergeCacheSize(size: number): void;
  clearMergeCache(): void;
}

/** Words whose merges a thread keeps at most between two calls (gpt-tokenizer's own limit). */
export const MERGE_CACHE_ENTRIES = 100_000;

/**
 * `api` with its cache of merged words emptied, between two calls, once it holds more
 * than `MERGE_CACHE_ENTRIES` words, and never trimmed during a call (D-1157).
 * gpt-tokenizer trims it to its limit one word at a time, deleting the first key of a
 * Map; V8 leaves deleted slots in place until the table is rebuilt, and finding the
 * first key walks past all of them, so once a thread had met 100,000 distinct words
 * every new one cost a walk of up to the whole table: chunking 800 KB of distinct words
 * took 20 s, 400 KB 1.2 s. Where the cache cannot be seen (another version of the
 * package), `api` is left as it is.
 */
export function bounded<T extends MergeCached>(api: T): T {
  const core = (api as { bytePairEncodingCoreProcessor?: { mergeCache?: unknown } }).bytePairEncodingCoreProcessor;
  if (!core || !(core.mergeCache instanceof Map)) return api;
  api.setMergeCacheSize(Number.MAX_SAFE_INTEGER);
  const trim = () => {
    if (core.mergeCache instanceof Map && core.mergeCache.size > MERGE_CACHE_ENTRIES) api.clearMergeCache();
  };
  const { countTokens, encode } = api;
  return Object.assign(Object.create(api) as T, {
    countTokens(text: string, options: typeof AS_TEXT) {
      const n = countTokens.call(api, text, options);
      trim();
      return n;
    },
    encode(text: string, options: typeof AS_TEXT) {
      const tokens = encode.call(api, text, options);
      trim();
      return tokens;
    },
  });
}

let encoding: Promise<Encoding> | undefined;

function tokenizerOf(api: Encoding): Tokenizer {
  const count = (text: string) => (text ? api.countTokens(text, AS_TEXT) : 0);
  return { name: 'o200k_base', count: (text: string) => sliced(count, text) };
}

/** What `fromTable` replaces in gpt-tokenizer's encoding core: its lookups, built from the ranks in its constructor. */
interface CoreLookups {
  bytePairStringRankEncoder: { get(key: string): number | undefined };
  bytePairNonUtfSortedEncoder: [Uint8Array, number][];
  bytePairNonUtfRankDecoder: Map<number, Uint8Array>;
  bytePairRankDecoder: unknown;
  mergeableBytePairRankCount: number;
}

/**
 * o200k_base over the bundle's rank table (D-1214): gpt-tokenizer's own encoding, built
 * with no ranks, then given the table's lookups where it would have built them from
 * 200,000 ranks (its `Map` of string tokens, its sorted binary tokens; the ranks by rank
 * only when a reply is decoded). Undefined when the package is not the one this was
 * written for: its own ranks are read instead.
 */
export async function encodingFromTable(bytes: Uint8Array): Promise<Encoding | undefined> {
  const table = RankTable.read(bytes);
  if (!table) return undefined;
  const { GptEncoding } = await import('gpt-tokenizer/GptEncoding');
  const api = GptEncoding.getEncodingApi('o200k_base', () => []);
  const core = (api as unknown as { bytePairEncodingCoreProcessor?: Partial<CoreLookups> }).bytePairEncodingCoreProcessor;
  if (
    !core ||
    !(core.bytePairStringRankEncoder instanceof Map) ||
    !Array.isArray(core.bytePairNonUtfSortedEncoder) ||
    !(core.bytePairNonUtfRankDecoder instanceof Map) ||
    !Array.isArray(core.bytePairRankDecoder)
  )
    return undefined;
  core.bytePairStringRankEncoder = table;
  core.bytePairNonUtfSortedEncoder = table.binaries;
  for (const [token, rank] of table.binaries) core.bytePairNonUtfRankDecoder.set(rank, token);
  core.mergeableBytePairRankCount = table.size + table.binaries.length;
  let ranks: unknown[] | undefined;
  Object.defineProperty(core, 'bytePairRankDecoder', { get: () => (ranks ??= table.ranks()), configurable: true });
  return bounded(api as unknown as MergeCached);
}

/**
 * The o200k_base encoding, loaded on first use and once per thread (the pipeline's
 * counts and the chat's tokens share it), which start-up should not pay. Beside the
 * bundle, its rank table is read as it is (D-1214: about 10 ms of a thread, where
 * gpt-tokenizer's module of ranks costs 0.4 s and the same ranks as JSON 0.25 s,
 * D-1073); elsewhere the package's own module.
 */
export function loadEncoding(): Promise<Encoding> {
  const packaged = async () => bounded((await import('gpt-tokenizer')).default);
  encoding ??= readFile(new URL(`./${RANK_TABLE_FILE}`, import.meta.url)).then(
    async (bytes) => (await encodingFromTable(bytes)) ?? packaged(),
    async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
      return packaged();
    },
  );
  return encoding;
}

/** The token counter over `loadEncoding()`. */
export function loadTokenizer(): Promise<Tokenizer> {
  loading ??= loadEncoding().then(tokenizerOf);
  return loading;
}

const BLANK_LINE = '\n\n';
const WORD_END = /[\p{L}\p{N}]$/u;
const SPACE = /\s/;

/** Whether `text` ends with a letter or a digit (one code point, perhaps two UTF-16 units). */
function endsInWord(text: string): boolean {
  return WORD_END.test(text.slice(-2));
}

/** Where the last white space that follows a letter or a digit starts (o200k's pre-tokenizer ends a piece there), or 0. */
function lastWordEnd(text: string): number {
  for (let j = text.length - 1; j > 0; j--) if (SPACE.test(text[j]!) && endsInWord(text.slice(Math.max(0, j - 2), j))) return j;
  return 0;
}

/**
 * The count of `parts` joined by blank lines, exactly `count(texts.join('\n\n'))`, from
 * the parts' own counts (D-1001). BPE merges only inside the pieces o200k_base's
 * pre-tokenizer (a regular expression without look-behind) cuts the text into, so a
 * count is the sum of its pieces' counts, and a place where a piece always ends splits
 * a count in two. A blank line between two parts is a piece of its own when the part
 * before it ends with a letter or a digit and the part after starts with anything but
 * white space or a slash (only a punctuation run takes the line ends after it, and a
 * slash after them; the blank line then ends before the next part's first character):
 * one more count. After punctuation the blank line joins the last piece: what the
 * joined tail costs beyond the tail alone is counted, from the last white space after
 * a letter or a digit (a piece ends there) or from the part's start. The long runs
 * `count` cuts in slices never cross white space, so they are cut the same way. Parts
 * outside these rules (empty, ending or starting with white space, starting with a
 * slash) are counted joined.
 */
export function countJoined(tokenizer: Tokenizer, parts: readonly { text: string; tokens: number }[]): number {
  if (parts.length === 1) return parts[0]!.tokens;
  // The rules are o200k_base's pre-tokenizer's; another tokenizer counts the joined text.
  if (tokenizer.name !== 'o200k_base') return tokenizer.count(parts.map((p) => p.text).join(BLANK_LINE));
  let total = parts[0]!.tokens;
  for (let i = 1; i < parts.length; i++) {
    const before = parts[i - 1]!;
    const after = parts[i]!.text;
    if (!before.text || !after || SPACE.test(before.text.at(-1)!) || SPACE.test(after[0]!) || after[0] === '/') {
      return tokenizer.count(parts.map((p) => p.text).join(BLANK_LINE));
    }
    if (endsInWord(before.text)) total += tokenizer.count(BLANK_LINE);
    else {
      const from = lastWordEnd(before.text);
      const tail = before.text.slice(from);
      total += tokenizer.count(tail + BLANK_LINE) - (from === 0 ? before.tokens : tokenizer.count(tail));
    }
    total += parts[i]!.tokens;
  }
  return total;
}

/** `tokenizer`, remembering what it counted: one document's blocks, counted again as parts of the whole (D-1001). */
export function remembering(tokenizer: Tokenizer): Tokenizer {
  const counts = new Map<string, number>();
  return {
    name: tokenizer.name,
    count(text) {
      const known = counts.get(text);
      if (known !== undefined) return known;
      const n = tokenizer.count(text);
      counts.set(text, n);
      return n;
    },
  };
}

/** A blank line between two characters that are not white space, the second not a slash. */
const PARAGRAPH_BREAK = /(?<=\S)\n\n(?=[^\s/])/;

/**
 * `count(text)`, exactly, as the sum of the counts of its paragraphs (the pieces between
 * blank lines, `countJoined`): with a remembering tokenizer, the paragraphs already
 * counted as a document's blocks are not counted again (D-1001).
 */
export function countByParagraphs(tokenizer: Tokenizer, text: string): number {
  return countJoined(
    tokenizer,
    text.split(PARAGRAPH_BREAK).map((part) => ({ text: part, tokens: tokenizer.count(part) })),
  );
}
