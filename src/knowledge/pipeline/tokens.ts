/** Token counts with a real BPE tokenizer (o200k_base, the GPT-4o family's). */
export interface Tokenizer {
  readonly name: string;
  count(text: string): number;
}

let loading: Promise<Tokenizer> | undefined;

// Text such as "<|endoftext|>" in a document is text, not a control token.
const AS_TEXT = { disallowedSpecial: new Set<string>() };

// BPE merging is quadratic in the length of one run without spaces: 200,000 letters
// in a row would take minutes. Runs that long (hashes, base64, junk) are counted in
// slices, which changes their count by a token or two and nothing else.
const LONG_RUN = /\S{257,}/g;
const SLICE = 256;

function sliced(count: (text: string) => number, text: string): number {
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

/**
 * The tokenizer, loaded on first use: its vocabulary takes a few hundred milliseconds
 * to load, which start-up should not pay.
 */
export function loadTokenizer(): Promise<Tokenizer> {
  loading ??= import('gpt-tokenizer').then((mod) => {
    const count = (text: string) => (text ? mod.countTokens(text, AS_TEXT) : 0);
    return { name: 'o200k_base', count: (text: string) => sliced(count, text) };
  });
  return loading;
}
