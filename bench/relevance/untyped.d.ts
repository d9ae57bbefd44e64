// These packages ship no types; the relevance benchmark uses this much of them.
declare module 'wink-bm25-text-search' {
  interface Bm25Engine {
    defineConfig(config: { fldWeights: Record<string, number>; bm25Params?: { k1?: number; b?: number; k?: number } }): boolean;
    definePrepTasks(tasks: ((input: never) => unknown)[], field?: string): number;
    addDoc(doc: Record<string, string>, id: string): number;
    consolidate(precision?: number): boolean;
    search(text: string, limit?: number): [string, number][];
  }
  export default function bm25(): Bm25Engine;
}

declare module 'stopword' {
  export const eng: string[];
  export const spa: string[];
}
