/**
 * The small hotel set of `test/fixtures/relevance/` (the unit test holds the emulator to
 * >= 90% top-1 and every answer in the top 3): does an approach keep that? Each
 * document becomes one chunk, its title as a heading line, as ingestion of a short
 * text gives one chunk; another agent's documents are left out (scoping is not ranking).
 */
import { readFileSync } from 'node:fs';
import { detect } from './analyze.js';
import type { Approach } from './approaches.js';
import type { Chunk } from './data.js';

interface FixtureDocument {
  id: string;
  owner: 'agent' | 'pool' | 'other';
  lang: 'en' | 'es';
  title: string;
  text: string;
}

const read = (name: string) => JSON.parse(readFileSync(new URL(`../../../test/fixtures/relevance/${name}`, import.meta.url), 'utf8'));

export function fixtureCheck(approach: Approach, threshold: number): string {
  const documents = (read('documents.json').documents as FixtureDocument[]).filter((d) => d.owner !== 'other');
  const queries = read('queries.json').queries as { query: string; expected: string }[];
  const chunks: Chunk[] = documents.map((d) => ({
    id: d.id, sourceId: d.id, section: d.id, docLang: d.lang, lang: detect(d.text, d.lang), title: d.title, text: `# ${d.title}\n\n${d.text}`,
  }));
  const retrieve = approach.build(chunks);
  let first = 0;
  let top3 = 0;
  let refused = 0;
  const misses: string[] = [];
  for (const { query, expected } of queries) {
    const { positions, confidence } = retrieve(query, 3);
    const ranked = positions.map((i) => chunks[i]!.id);
    if (ranked[0] === expected) first += 1;
    else misses.push(`${query} -> ${ranked.join(', ') || 'nothing'}`);
    if (ranked.includes(expected)) top3 += 1;
    if (confidence < threshold) refused += 1;
  }
  const n = queries.length;
  return (
    `hotel fixture (${documents.length} documents, ${n} queries): top-1 ${first}/${n} (${Math.round((100 * first) / n)}%), top-3 ${top3}/${n}; ` +
    `refused at the threshold: ${refused}/${n}${misses.length ? `\n    misses: ${misses.join('; ')}` : ''}`
  );
}
