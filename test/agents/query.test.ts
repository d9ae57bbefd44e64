import { describe, expect, it } from 'vitest';
import { client } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';
import { createAgent, ingest, messages } from './support.js';

const emulator = await fileEmulator({ seed: 8 });
const doc = (await (await emulator.request('/v1/openapi.json')).json()) as Parameters<typeof expectMatchesOpenApi>[0];

const SHOP = [
  { title: 'Opening hours', text: 'The bakery opens from Monday to Saturday, 7:00 to 14:00. On Sundays it is closed.', topics: ['hours'] },
  { title: 'Bread prices', text: 'A sourdough loaf costs 4 euros and a baguette 1.20 euros.', topics: ['prices'] },
  { title: 'Delivery', text: 'We deliver bread to homes and offices in the city centre every morning.', topics: [] },
  { title: 'Cakes to order', text: 'Birthday cakes must be ordered two days in advance; prices start at 25 euros.', topics: ['prices', 'cakes'] },
];

async function bakery() {
  const ws = await workspace(emulator);
  const agentId = await createAgent(ws.api, 'Baker', 'Bakery');
  const sourceIds = await ingest(
    ws.api,
    ws.control,
    SHOP.map((s) => ({ ...s, agentId })),
  );
  const query = (body: unknown, agent = agentId) => ws.api.post(`/v1/agents/${agent}/query`, body);
  return { ...ws, agentId, sourceIds, query };
}

describe('POST /v1/agents/{id}/query', () => {
  it('answers passages best first with scores in 0..1, the strategies, and matches the OpenAPI description', async () => {
    const { query, sourceIds } = await bakery();
    const res = await query({ query: 'When does the bakery open on Saturday?' });
    expect(res.status).toBe(200);
    expectMatchesOpenApi(doc, 'POST', '/v1/agents/{agentId}/query', 200, res.body);
    expect(res.body.passages[0]).toEqual({
      sourceId: sourceIds[0],
      title: 'Opening hours',
      text: SHOP[0]!.text,
      score: expect.any(Number),
      topics: ['hours'],
      lang: 'en',
    });
    const scores = res.body.passages.map((p: { score: number }) => p.score);
    expect(scores).toEqual([...scores].sort((a: number, b: number) => b - a));
    for (const s of scores) expect(s >= 0 && s <= 1).toBe(true);
    // "hours" names a topic: routing found the first passage, similarity found it too.
    expect(res.body.strategies.topics).toBeGreaterThanOrEqual(1);
    expect(res.body.strategies.vector).toBeGreaterThanOrEqual(1);
    for (const n of Object.values(res.body.strategies) as number[]) expect(n).toBeLessThanOrEqual(res.body.passages.length);
  });

  it('limit is 1 to 20, default 5', async () => {
    const { query } = await bakery();
    expect((await query({ query: 'bread' })).body.passages.length).toBeLessThanOrEqual(5);
    expect((await query({ query: 'bread', limit: 1 })).body.passages).toHaveLength(1);
    expect((await query({ query: 'bread', limit: 20 })).status).toBe(200);
    for (const limit of [0, 21, 1.5, '3']) {
      const res = await query({ query: 'bread', limit });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'svc.request.validation_failed', errors: [{ field: 'limit' }] });
    }
  });

  it('query is 1 to 2000 characters; topics are lowercase tags', async () => {
    const { query } = await bakery();
    expect((await query({ query: 'b'.repeat(2000) })).status).toBe(200);
    for (const [body, field] of [
      [{ query: 'b'.repeat(2001) }, 'query'],
      [{ query: '' }, 'query'],
      [{}, 'query'],
      [{ query: 'bread', topics: ['Not a tag!'] }, 'topics.0'],
      [{ query: 'bread', topics: 'hours' }, 'topics'],
      [{ query: 'bread', unknown: true }, 'unknown'],
    ] as const) {
      const res = await query(body);
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect(res.body.code).toBe('svc.request.validation_failed');
      expect(res.body.errors[0].field).toBe(field);
    }
    // Tags are trimmed and lowercased like everywhere else.
    expect((await query({ query: 'bread', topics: [' PRICES '] })).status).toBe(200);
  });

  it('with topics, a source is eligible when it is universal or shares a topic', async () => {
    const { query, sourceIds } = await bakery();
    const res = await query({ query: 'bread cakes opening delivery prices', topics: ['cakes'], limit: 20 });
    expect(new Set(res.body.passages.map((p: { sourceId: string }) => p.sourceId))).toEqual(new Set([sourceIds[2], sourceIds[3]]));
    expect(res.body.strategies.topics).toBe(1);
  });

  it('costs no credit', async () => {
    const { api, query } = await bakery();
    const before = await messages(api);
    await query({ query: 'bread' });
    expect(await messages(api)).toEqual(before);
  });

  it('reads the agent’s own sources and the workspace pool, never another agent’s', async () => {
    const { api, control, query } = await bakery();
    const other = await createAgent(api, 'Other');
    const [pooled, theirs] = await ingest(api, control, [
      { title: 'Parking', text: 'Customers park for free behind the bakery.' },
      { title: 'Secret recipe', text: 'Customers of the other shop park on the roof.', agentId: other },
    ]);
    const ids = (await query({ query: 'Where can customers park?', limit: 20 })).body.passages.map((p: { sourceId: string }) => p.sourceId);
    expect(ids[0]).toBe(pooled);
    expect(ids).not.toContain(theirs);
    const fromOther = await query({ query: 'Where can customers park?', limit: 20 }, other);
    expect(fromOther.body.passages.map((p: { sourceId: string }) => p.sourceId)).toContain(theirs);
  });

  it('answers empty passages while nothing is ready, and forgets a deleted source at once', async () => {
    const { api, query, sourceIds } = await bakery();
    const fresh = await createAgent(api, 'New');
    const pending = await api.post('/v1/knowledge/text', { title: 'Later', text: 'Nothing yet.', agentId: fresh });
    expect(pending.body.status).toBe('pending');
    expect((await query({ query: 'anything' }, fresh)).body).toEqual({ passages: [], strategies: { topics: 0, vector: 0 } });
    expect((await api.delete(`/v1/knowledge/sources/${sourceIds[1]}`)).status).toBe(200);
    const after = await query({ query: 'How much is a sourdough loaf?', limit: 20 });
    expect(after.body.passages.map((p: { sourceId: string }) => p.sourceId)).not.toContain(sourceIds[1]);
  });

  it('an unknown agent is 404 svc.agent.not_found; another workspace’s agent too', async () => {
    const { query } = await bakery();
    const stranger = await workspace(emulator);
    const theirs = await createAgent(stranger.api);
    for (const id of ['agt_unknown', theirs]) {
      const res = await query({ query: 'bread' }, id);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('svc.agent.not_found');
    }
  });

  it('needs knowledge:read (chat:write is not enough), checked before the agent', async () => {
    const ws = await workspace(emulator, { scopes: ['chat:write', 'landings:write', 'knowledge:write'] });
    const agentId = await createAgent(ws.api);
    for (const id of [agentId, 'agt_unknown']) {
      const res = await client(emulator, ws.key).post(`/v1/agents/${id}/query`, { query: 'bread' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('svc.api_key.scope_missing');
    }
  });
});
