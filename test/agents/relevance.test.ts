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

/** Questions a hotel guest might ask that none of the documents answers. */
const UNANSWERABLE = [
  'Is there a casino in the hotel?',
  'Do you rent surfboards?',
  'Can I get a tattoo appointment nearby?',
  '¿Tenéis helipuerto?',
  '¿Organizáis clases de cocina?',
  '¿Se puede pescar en el lago?',
];

async function hotel() {
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
  return { api, agentId, labelOf: new Map(ids.map((id, i) => [id, documents[i]!.id])) };
}

it('ranks the right document first for at least 90% of the queries, and within the top 3 for all', async () => {
  const { api, agentId, labelOf } = await hotel();
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

it('gives no passages for most questions the knowledge cannot answer, and the chat then cites nothing', async () => {
  const { api, agentId } = await hotel();
  const refused: string[] = [];
  for (const query of UNANSWERABLE) {
    const res = await api.post(`/v1/agents/${agentId}/query`, { query, limit: 3 });
    expect(res.status).toBe(200);
    if (res.body.passages.length === 0) {
      expect(res.body.strategies).toEqual({ topics: 0, vector: 0 });
      refused.push(query);
    }
  }
  // Most, not all: answering is the default (D-763), and in a knowledge base this small
  // a question sharing one word with a page ("hotel", "lago") is not surely unanswerable.
  expect(refused.length, `refused: ${refused.join(' | ')}`).toBeGreaterThanOrEqual(4);
  for (const message of refused.slice(0, 2)) {
    const chat = await api.post(`/v1/agents/${agentId}/chat`, { message });
    expect(chat.status).toBe(200);
    expect(chat.body.components).toEqual([]);
    expect(chat.body.reply).toMatch(/^(I'm sorry, I don't have information about that yet|Lo siento, todavía no tengo información sobre eso)\..*Hotel Mirador/);
  }
  // An answerable question of the same set still gets its passages and a cited answer.
  const answered = await api.post(`/v1/agents/${agentId}/chat`, { message: queries[0]!.query });
  expect(answered.body.components).toHaveLength(1);
});
