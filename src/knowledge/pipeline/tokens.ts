/** Token counts with a real BPE tokenizer (o200k_base, the GPT-4o family's). */
export interface Tokenizer {
  readonly name: string;
  count(text: string): number;
  encode(text: string): number[];
  decode(tokens: number[]): string;
}

let loading: Promise<Tokenizer> | undefined;

// Text such as "<|endoftext|>" in a document is text, not a control token.
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * The tokenizer, loaded on first use: its vocabulary takes a few hundred milliseconds
 * to load, which start-up should not pay.
 */
export function loadTokenizer(): Promise<Tokenizer> {
  loading ??= import('gpt-tokenizer').then((mod) => ({
    name: 'o200k_base',
    count: (text: string) => mod.countTokens(text, AS_TEXT),
    encode: (text: string) => mod.encode(text, AS_TEXT),
    decode: (tokens: number[]) => mod.decode(tokens),
  }));
  return loading;
}
