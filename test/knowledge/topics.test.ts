import { describe, expect, it } from 'vitest';
import { walk } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';
import { addText, openapi } from './support.js';

const emulator = await fileEmulator({ seed: 7 });
const doc = await openapi(emulator);
const index = emulator.service.knowledge.index;

async function setup() {
  const ws = await workspace(emulator);
  const agentId = (await ws.api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id;
  const pool1 = await addText(ws.api, { title: 'P1', text: 'Returns within thirty days.', topics: ['returns', 'faq'] });
  const pool2 = await addText(ws.api, { title: 'P2', text: 'Refunds in ten days.', topics: ['refunds', 'faq'] });
  const own = await addText(ws.api, { title: 'A1', text: 'Agent returns.', topics: ['returns'], agentId });
  return { ...ws, agentId, pool1, pool2, own };
}

describe('topic listing', () => {
  it("counts sources per topic in the pool, or among one agent's own sources, alphabetically", async () => {
    const { api, agentId } = await setup();
    const pool = await api.get('/v1/knowledge/topics');
    expect(pool.status).toBe(200);
    expect(pool.body).toEqual({
      data: [
        { topic: 'faq', sourceCount: 2 },
        { topic: 'refunds', sourceCount: 1 },
        { topic: 'returns', sourceCount: 1 },
      ],
      hasMore: false,
      nextCursor: null,
    });
    expectMatchesOpenApi(doc, 'GET', '/v1/knowledge/topics', 200, pool.body);
    expect((await api.get(`/v1/knowledge/topics?agentId=${agentId}`)).body.data).toEqual([{ topic: 'returns', sourceCount: 1 }]);
    expect((await api.get('/v1/knowledge/topics?agentId=agt_nope')).body.code).toBe('svc.agent.not_found');
  });

  it('walks many topics in pages, forwards and backwards, and refuses bad cursors', async () => {
    const { api } = await workspace(emulator);
    const names = Array.from({ length: 30 }, (_, i) => `topic-${String(i).padStart(2, '0')}`);
    for (let i = 0; i < names.length; i += 10) await addText(api, { title: `T${i}`, text: 'x', topics: names.slice(i, i + 10) });
    expect((await walk(api, '/v1/knowledge/topics', 7)).map((t) => t.topic)).toEqual(names);
    const first = await api.get('/v1/knowledge/topics?limit=7');
    const second = await api.get(`/v1/knowledge/topics?limit=7&after=${first.body.nextCursor}`);
    const back = await api.get(`/v1/knowledge/topics?limit=7&before=${second.body.nextCursor}`);
    expect(back.body.data.map((t: { topic: string }) => t.topic)).toEqual(names.slice(6, 13));
    expect(back.body.hasMore).toBe(true);
    for (const q of ['after=nope', 'limit=0', 'limit=101', `after=${first.body.nextCursor}&before=${first.body.nextCursor}`]) {
      expect((await api.get(`/v1/knowledge/topics?${q}`)).body.code, q).toBe('svc.request.validation_failed');
    }
  });
});

describe('topic merge', () => {
  it('rewrites the tag on every source of the scope, and only there', async () => {
    const { api, agentId, pool1, pool2, own } = await setup();
    const res = await api.post('/v1/knowledge/topics/merge', { from: 'returns', into: 'refunds' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ from: 'returns', into: 'refunds', sourcesUpdated: 1 });
    expectMatchesOpenApi(doc, 'POST', '/v1/knowledge/topics/merge', 200, res.body);
    expect((await api.get(`/v1/knowledge/sources/${pool1}`)).body.topics).toEqual(['refunds', 'faq']);
    expect((await api.get(`/v1/knowledge/sources/${pool2}`)).body.topics).toEqual(['refunds', 'faq']);
    expect((await api.get(`/v1/knowledge/sources/${own}`)).body.topics).toEqual(['returns']);
    const agent = await api.post('/v1/knowledge/topics/merge', { from: 'returns', into: 'after-sales', agentId });
    expect(agent.body.sourcesUpdated).toBe(1);
    expect((await api.get(`/v1/knowledge/sources/${own}`)).body.topics).toEqual(['after-sales']);
  });

  it('collapses a source that had both tags into one, normalises the tags, and changes the knowledge version', async () => {
    const { api, workspaceId, agentId, pool1 } = await setup();
    await emulator.drain();
    const before = await index.version(workspaceId, agentId);
    const res = await api.post('/v1/knowledge/topics/merge', { from: ' FAQ ', into: 'Returns' });
    expect(res.body).toEqual({ from: 'faq', into: 'returns', sourcesUpdated: 2 });
    expect((await api.get(`/v1/knowledge/sources/${pool1}`)).body.topics).toEqual(['returns']);
    expect((await index.eligibleChunks(workspaceId, agentId)).find((c) => c.sourceId === pool1)!.topics).toEqual(['returns']);
    expect(await index.version(workspaceId, agentId)).not.toBe(before);
  });

  it('refuses merging a topic into itself or a malformed tag (400 topic_invalid) and an unused topic (404 topic_not_found), changing nothing', async () => {
    const { api, agentId } = await setup();
    for (const body of [
      { from: 'faq', into: 'faq' },
      { from: 'faq', into: ' FAQ' },
      { from: 'faq' },
      { from: 'bad tag', into: 'x' },
      { from: 'faq', into: 'x', extra: 1 },
    ]) {
      const res = await api.post('/v1/knowledge/topics/merge', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('svc.knowledge.topic_invalid');
      expect(res.body.errors.length).toBeGreaterThan(0);
    }
    const unused = await api.post('/v1/knowledge/topics/merge', { from: 'shipping', into: 'faq' });
    expect(unused.status).toBe(404);
    expect(unused.body.code).toBe('svc.knowledge.topic_not_found');
    // faq exists in the pool but not among the agent's own sources.
    expect((await api.post('/v1/knowledge/topics/merge', { from: 'faq', into: 'x', agentId })).body.code).toBe('svc.knowledge.topic_not_found');
    expect((await api.post('/v1/knowledge/topics/merge', { from: 'faq', into: 'x', agentId: 'agt_nope' })).body.code).toBe('svc.agent.not_found');
    expect((await api.get('/v1/knowledge/topics')).body.data.map((t: { topic: string }) => t.topic)).toEqual(['faq', 'refunds', 'returns']);
  });

  it('needs knowledge:write; listing needs knowledge:read', async () => {
    const reader = await workspace(emulator, { scopes: ['knowledge:read'] });
    expect((await reader.api.post('/v1/knowledge/topics/merge', { from: 'a', into: 'b' })).body.code).toBe('svc.api_key.scope_missing');
    expect((await reader.api.get('/v1/knowledge/topics')).status).toBe(200);
  });
});
