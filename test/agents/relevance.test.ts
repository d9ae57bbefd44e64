import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { fileEmulator, workspace } from '../support/emulator.js';
import { createAgent, ingest } from './support.js';

interface LabelledDocument {
  id: string;
  owner: 'agent' | 'pool' | 'other';
  lang: 'es' | 'en';
  topics: string[];
  title: string;
  text: string;
}

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/relevance/${name}`, import.meta.url), 'utf8'));
const documents: LabelledDocument[] = fixture('documents.json').documents;
const queries: { query: string; expected: string }[] = fixture('queries.json').queries;

const emulator = await fileEmulator();

it('the labelled set is big enough: 20+ documents in both languages, 40+ queries', () => {
  const answerable = documents.filter((d) => d.owner !== 'other');
  expect(answerable.length).toBeGreaterThanOrEqual(20);
  expect(new Set(answerable.map((d) => d.lang))).toEqual(new Set(['es', 'en']));
  expect(queries.length).toBeGreaterThanOrEqual(40);
  for (const q of queries) expect(answerable.map((d) => d.id)).toContain(q.expected);
});

it('ranks the right document first for at least 90% of the queries, and within the top 3 for all', async () => {
  const { api, control } = await workspace(emulator);
  const agentId = await createAgent(api, 'Mirador', 'Hotel Mirador');
  const otherId = await createAgent(api, 'Sol', 'Hotel Sol');
  const ids = await ingest(
    api,
    control,
    documents.map((d) => ({
      title: d.title,
      text: d.text,
      topics: d.topics,
      ...(d.owner !== 'pool' && { agentId: d.owner === 'agent' ? agentId : otherId }),
    })),
  );
  const labelOf = new Map(ids.map((id, i) => [id, documents[i]!.id]));
  const sources = (await api.get('/v1/knowledge/sources?limit=100')).body.data as { status: string }[];
  expect(sources.every((s) => s.status === 'ready')).toBe(true);

  let first = 0;
  const misses: string[] = [];
  for (const { query, expected } of queries) {
    const res = await api.post(`/v1/agents/${agentId}/query`, { query, limit: 3 });
    expect(res.status).toBe(200);
    const ranked = (res.body.passages as { sourceId: string }[]).map((p) => labelOf.get(p.sourceId)!);
    expect(ranked.some((label) => label.startsWith('other-')), `${query}: another agent's knowledge`).toBe(false);
    expect(ranked, `${query}: expected ${expected} within the top 3`).toContain(expected);
    if (ranked[0] === expected) first++;
    else misses.push(`${query} -> ${ranked.join(', ')}`);
  }
  expect(first / queries.length, `misses:\n${misses.join('\n')}`).toBeGreaterThanOrEqual(0.9);
});
