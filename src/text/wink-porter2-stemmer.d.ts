// `wink-porter2-stemmer` ships no types; retrieval's analysis uses this much of it.
declare module 'wink-porter2-stemmer' {
  export default function stem(word: string): string;
}
