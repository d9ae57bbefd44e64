import { beforeEach, describe, expect, it } from 'vitest';
import type { AgentsService } from '../../src/agents/agents.service.js';
import { RetrievalService, separated, topPositions } from '../../src/retrieval/retrieval.service.js';
import { MemoryKnowledgeIndex } from './memory-index.js';

// Retrieval against an in-memory index: the ranking, the strategies and the cache,
// without ingestion. The HTTP behaviour is covered in query.test.ts.
const WS = 'ws_test';
const AGENT = 'agt_test';
let index: MemoryKnowledgeIndex;
let retrieval: RetrievalService;

beforeEach(async () => {
  index = new MemoryKnowledgeIndex();
  retrieval = new RetrievalService({ agents: {} as AgentsService, knowledge: index });
  await index.add(WS, {
    sourceId: 'src_hours',
    agentId: AGENT,
    title: 'Opening hours',
    text: 'The shop is open Monday to Friday from 9 to 18. On Saturday it opens from 10 to 14.',
    topics: ['opening-hours'],
    lang: 'en',
  });
  await index.add(WS, {
    sourceId: 'src_prices',
    agentId: null,
    title: 'Prices',
    text: 'A haircut costs 20 euros. Colouring costs 45 euros.',
    topics: ['pricing'],
    lang: 'en',
  });
  await index.add(WS, { sourceId: 'src_parking', agentId: null, title: 'Parking', text: 'There is free parking behind the shop.', topics: [], lang: 'en' });
  await index.add(WS, {
    sourceId: 'src_other_agent',
    agentId: 'agt_other',
    title: 'Secret',
    text: 'The shop is open at night for members.',
    topics: [],
    lang: 'en',
  });
});

describe('ranking', () => {
  it('puts the passage that answers first, scores in 0..1 best first, at most limit', async () => {
    const result = await retrieval.search(WS, AGENT, { query: 'When is the shop open on Saturday?', topics: [], limit: 2 });
    expect(result.passages).toHaveLength(2);
    expect(result.passages[0]!.sourceId).toBe('src_hours');
    const scores = result.passages.map((p) => p.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const s of scores) {
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1);
    }
    expect(result.passages.map((p) => p.sourceId)).not.toContain('src_other_agent');
  });

  it('counts what each strategy found: routed topic and similarity', async () => {
    const result = await retrieval.search(WS, AGENT, { query: 'pricing of a haircut', topics: [], limit: 1 });
    expect(result.passages[0]!.sourceId).toBe('src_prices');
    expect(result.strategies).toEqual({ topics: 1, vector: 1 });
  });

  it('with topics, keeps universal sources and those sharing a topic', async () => {
    const result = await retrieval.search(WS, AGENT, { query: 'shop', topics: ['pricing'], limit: 10 });
    expect(new Set(result.passages.map((p) => p.sourceId))).toEqual(new Set(['src_prices', 'src_parking']));
  });

  it('answers no passages for an agent with no knowledge', async () => {
    const empty = await retrieval.search('ws_empty', AGENT, { query: 'anything', topics: [], limit: 5 });
    expect(empty).toEqual({ passages: [], strategies: { topics: 0, vector: 0 } });
  });
});

describe('shown scores', () => {
  it('strictly decrease between different texts, also under the sixth decimal; the same text twice ties (D-761, D-1105)', () => {
    expect(separated([0.5, 0.5, 0.3, 0.3], ['a', 'b', 'c', 'c'])).toEqual([0.5, 0.499999, 0.3, 0.3]);
    // A 2,000-character question over many weak passages: scores were 0.000001, then 0, 0, 0...
    const tiny = separated([0.000001, 0.000001, 0.000001, 0.0000004, 0.0000004, 0.00000001], ['a', 'b', 'c', 'd', 'e', 'f']);
    for (let k = 1; k < tiny.length; k++) expect(tiny[k]!, String(k)).toBeLessThan(tiny[k - 1]!);
    expect(Math.min(...tiny)).toBeGreaterThan(0);
  });
});

describe('the in-memory index per scope', () => {
  it('is built once per knowledge version and rebuilt when it changes', async () => {
    await retrieval.search(WS, AGENT, { query: 'parking', topics: [], limit: 5 });
    await retrieval.search(WS, AGENT, { query: 'prices', topics: [], limit: 5 });
    expect(index.eligibleCalls).toBe(1);
    index.removeSource('src_parking');
    const after = await retrieval.search(WS, AGENT, { query: 'parking', topics: [], limit: 5 });
    expect(index.eligibleCalls).toBe(2);
    expect(after.passages.map((p) => p.sourceId)).not.toContain('src_parking');
  });
  it('a rebuild that copies the terms of unchanged chunks ranks exactly like a fresh build', async () => {
    const queries = ['shop open Saturday', 'haircut price', 'parking behind', 'vegan menu', 'colouring'];
    for (const q of queries) await retrieval.search(WS, AGENT, { query: q, topics: [], limit: 5 });
    await index.add(WS, {
      sourceId: 'src_menu',
      agentId: AGENT,
      title: 'Menu',
      text: 'A vegan menu is served at lunch; colouring books for children.',
      topics: [],
      lang: 'en',
    });
    index.removeSource('src_prices');
    const fresh = new RetrievalService({ agents: {} as AgentsService, knowledge: index });
    for (const q of queries) {
      const input = { query: q, topics: [], limit: 5 };
      expect(await retrieval.search(WS, AGENT, input), q).toEqual(await fresh.search(WS, AGENT, input));
    }
    expect((await retrieval.search(WS, AGENT, { query: 'vegan menu', topics: [], limit: 1 })).passages[0]!.sourceId).toBe('src_menu');
  });
});

describe('topPositions', () => {
  it('returns the k best positions that pass the filter, best first', () => {
    const scores = Float64Array.from([0.1, 0.9, 0.5, 0.7, 0.3]);
    expect(topPositions(scores, 3, () => true)).toEqual([1, 3, 2]);
    expect(topPositions(scores, 2, (i) => i !== 1)).toEqual([3, 2]);
    expect(topPositions(scores, 5, () => true, [0, 4])).toEqual([4, 0]);
  });
});
