import { stemmer as spanishStemmer } from '@orama/stemmers/spanish';
import { eng, spa } from 'stopword';
import bm25 from 'wink-bm25-text-search';
import englishStemmer from 'wink-porter2-stemmer';

export interface Bm25Chunk {
  id: string;
  text: string;
  lang: 'en' | 'es';
}

const STOP = new Set([...eng, ...spa].map((w) => w.toLowerCase()));

/** Lowercased words of letters and digits (`apt-get` gives `apt`, `get`), stopwords out. */
function tokens(text: string): string[] {
  return (
    text
      .normalize('NFC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  ).filter((w) => !STOP.has(w));
}

const STEM = { en: (w: string) => englishStemmer(w), es: (w: string) => spanishStemmer(w) };

/**
 * The baseline: Okapi BM25 (k1 1.2, b 0.75) by wink-bm25-text-search over the emulator's
 * own chunks, each chunk stemmed by the Snowball stemmer of the language the emulator
 * gave it (Porter2 for English, Snowball Spanish). A question is stemmed both ways, so
 * that no language guess on a short question decides the baseline's fate: a Spanish
 * word meets an English chunk only where the stems agree (`configuración`, `configuration`).
 */
export function buildBm25(chunks: Bm25Chunk[]): (query: string, limit: number) => string[] {
  const engine = bm25();
  engine.defineConfig({ fldWeights: { body: 1 }, bm25Params: { k1: 1.2, b: 0.75, k: 1 } });
  // Documents arrive already stemmed (each in its own language); the question is stemmed
  // before search. The engine's own pipeline only splits on spaces.
  engine.definePrepTasks([(text: string) => text.split(' ').filter(Boolean)]);
  for (const chunk of chunks) {
    const stem = STEM[chunk.lang];
    engine.addDoc({ body: tokens(chunk.text).map(stem).join(' ') }, chunk.id);
  }
  engine.consolidate();
  return (query, limit) => {
    const stems = new Set(tokens(query).flatMap((w) => [STEM.en(w), STEM.es(w)]));
    const hits = engine.search([...stems].join(' '), chunks.length) as [string, number][];
    // Ties broken by id: the same order every run.
    hits.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return hits.slice(0, limit).map(([id]) => id);
  };
}
