import { describe, expect, it } from 'vitest';
import { type client, walk } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';
import { addText, openapi, settled } from './support.js';

const emulator = await fileEmulator({ seed: 3 });
const doc = await openapi(emulator);

async function sourceCount(api: ReturnType<typeof client>): Promise<number> {
  return (await walk(api, '/v1/knowledge/sources')).length;
}

describe('text sources', () => {
  it('accepts 202 pending with every field of the record, then becomes ready with chunks, tokens, language and summary', async () => {
    const { api } = await workspace(emulator);
    const res = await api.post('/v1/knowledge/text', {
      title: '  Opening hours ',
      text: '# Opening hours\n\nWe open every weekday from nine to six.',
      topics: [' Hours', 'faq', 'hours'],
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^src_[0-9a-z]{26}$/),
      agentId: null,
      kind: 'upload',
      title: 'Opening hours',
      status: 'pending',
      lang: 'en',
      translated: false,
      topics: ['hours', 'faq'],
      contentType: 'text/markdown',
      byteSize: 56,
      chunkCount: 0,
      tokenCount: 0,
      summary: '',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
    expectMatchesOpenApi(doc, 'POST', '/v1/knowledge/text', 202, res.body);
    const ready = await settled(emulator, api, res.body.id);
    expect(ready).toEqual({
      ...res.body,
      status: 'ready',
      lang: 'en',
      sourceLang: 'en',
      chunkCount: 1,
      tokenCount: 13,
      summary: 'Document "Opening hours" covering open and weekday.',
    });
    expectMatchesOpenApi(doc, 'GET', '/v1/knowledge/sources/{sourceId}', 200, ready);
  });

  it('detects Spanish text and never translates it', async () => {
    const { api } = await workspace(emulator);
    const text = 'Hacemos envíos a toda España en dos días laborables. El envío es gratuito desde 50 euros. Cada pedido lleva su número de seguimiento.';
    const id = await addText(api, { title: 'Envíos', text });
    const ready = await settled(emulator, api, id);
    expect(ready).toMatchObject({ status: 'ready', lang: 'es', sourceLang: 'es', translated: false });
    expect(ready.summary).toBe('Document "Envíos" in Spanish covering orders (pedido) and tracking (seguimiento).');
  });

  it('enforces the title (1..120), text (1..200000) and topics (at most 12, normalised) limits at their boundaries', async () => {
    const { api } = await workspace(emulator);
    const ok = (body: object) => api.post('/v1/knowledge/text', { title: 'T', text: 'x', ...body });
    const accepted = [
      { title: 'a' },
      { title: 'a'.repeat(120) },
      { text: 'y' },
      { text: 'y'.repeat(200_000) },
      { topics: Array.from({ length: 12 }, (_, i) => `t${i}`) },
      { topics: ['a'.repeat(40), 'opening-hours', '2026'] },
      { topics: [] },
    ];
    for (const body of accepted) expect((await ok(body)).status, JSON.stringify(body).slice(0, 80)).toBe(202);
    const refused: [object, string][] = [
      [{ title: '' }, 'title'],
      [{ title: '   ' }, 'title'],
      [{ title: 'a'.repeat(121) }, 'title'],
      [{ text: '' }, 'text'],
      [{ text: ' \n\t ' }, 'text'],
      [{ text: 'y'.repeat(200_001) }, 'text'],
      [{ topics: Array.from({ length: 13 }, (_, i) => `t${i}`) }, 'topics'],
      [{ topics: ['a'.repeat(41)] }, 'topics.0'],
      [{ topics: ['ok', 'not_ok'] }, 'topics.1'],
      [{ topics: ['-lead'] }, 'topics.0'],
      [{ topics: ['double--hyphen'] }, 'topics.0'],
      [{ topics: [''] }, 'topics.0'],
      [{ topics: 'faq' }, 'topics'],
      [{ agentId: '' }, 'agentId'],
      [{ tags: ['x'] }, 'tags'],
    ];
    const before = await sourceCount(api);
    for (const [body, field] of refused) {
      const res = await ok(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.code).toBe('svc.knowledge.source_invalid');
      expect(res.body.errors[0].field).toBe(field);
    }
    expect((await api.post('/v1/knowledge/text', { text: 'x' })).body.errors).toEqual([{ field: 'title', reason: 'required' }]);
    expect(await sourceCount(api)).toBe(before);
  });

  it('takes a 4 MiB body and refuses a bigger one with 413; a body that is not JSON is svc.request.invalid', async () => {
    const { api } = await workspace(emulator);
    const big = await api.post('/v1/knowledge/text', { title: 'Big', text: 'ñ'.repeat(200_000) });
    expect(big.status).toBe(202);
    const tooBig = await api.post('/v1/knowledge/text', `{"title":"T","text":"${'a'.repeat(4 * 1024 * 1024)}"}`, { 'content-type': 'application/json' });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.code).toBe('svc.request.payload_too_large');
    const notJson = await api.post('/v1/knowledge/text', 'title=T', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(notJson.body.code).toBe('svc.request.invalid');
  });

  it('belongs to the pool, or to an existing agent; an unknown agent is 404 and writes nothing', async () => {
    const { api } = await workspace(emulator);
    const agent = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body;
    expect((await api.post('/v1/knowledge/text', { title: 'P', text: 'pool', agentId: null })).body.agentId).toBeNull();
    expect((await api.post('/v1/knowledge/text', { title: 'A', text: 'own', agentId: agent.id })).body.agentId).toBe(agent.id);
    const unknown = await api.post('/v1/knowledge/text', { title: 'X', text: 'x', agentId: 'agt_nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('svc.agent.not_found');
    expect(await sourceCount(api)).toBe(2);
  });

  it('needs knowledge:write to add and delete, knowledge:read to read: write never implies read', async () => {
    const reader = await workspace(emulator, { scopes: ['knowledge:read'] });
    const writer = await workspace(emulator, { scopes: ['knowledge:write'] });
    expect((await reader.api.post('/v1/knowledge/text', { title: 'T', text: 'x' })).body.code).toBe('svc.api_key.scope_missing');
    expect((await reader.api.delete('/v1/knowledge/sources/src_nope')).status).toBe(403);
    expect((await writer.api.post('/v1/knowledge/text', { title: 'T', text: 'x' })).status).toBe(202);
    for (const path of ['/v1/knowledge/sources', '/v1/knowledge/sources/src_nope', '/v1/knowledge/topics']) {
      const res = await writer.api.get(path);
      expect(res.status, path).toBe(403);
      expect(res.body.code).toBe('svc.api_key.scope_missing');
    }
  });

  it('answers 404 svc.knowledge.source_not_found for unknown sources and for sources of another workspace', async () => {
    const mine = await workspace(emulator);
    const theirs = await workspace(emulator);
    const id = await addText(theirs.api, { title: 'Secret', text: 'Theirs only.' });
    for (const res of [
      await mine.api.get(`/v1/knowledge/sources/${id}`),
      await mine.api.delete(`/v1/knowledge/sources/${id}`),
      await mine.api.get('/v1/knowledge/sources/src_nope'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('svc.knowledge.source_not_found');
    }
    expect(await walk(mine.api, '/v1/knowledge/sources')).toEqual([]);
    expect((await theirs.api.get(`/v1/knowledge/sources/${id}`)).status).toBe(200);
    await theirs.api.post('/v1/knowledge/claims', { claim: { es: 'Suyo', en: 'Theirs' }, topics: ['private-topic'] });
    expect((await mine.api.get('/v1/knowledge/topics')).body.data).toEqual([]);
    expect((await mine.api.post('/v1/knowledge/topics/merge', { from: 'private-topic', into: 'mine' })).status).toBe(404);
    expect((await theirs.api.get('/v1/knowledge/topics')).body.data).toEqual([{ topic: 'private-topic', sourceCount: 1 }]);
  });
});

describe('the source list', () => {
  it('walks 25 sources newest first in pages of 4, forwards and backwards, without gaps or repeats', async () => {
    const { api } = await workspace(emulator);
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push(await addText(api, { title: `Doc ${i}`, text: `Document number ${i}.` }));
    const newestFirst = [...ids].reverse();
    expect((await walk(api, '/v1/knowledge/sources', 4)).map((s) => s.id)).toEqual(newestFirst);
    const first = await api.get('/v1/knowledge/sources?limit=4');
    expect(first.body.hasMore).toBe(true);
    expectMatchesOpenApi(doc, 'GET', '/v1/knowledge/sources', 200, first.body);
    const second = await api.get(`/v1/knowledge/sources?limit=4&after=${first.body.nextCursor}`);
    expect(second.body.data.map((s: { id: string }) => s.id)).toEqual(newestFirst.slice(4, 8));
    // Backwards from the end of the second page: the four just before it, still newest first.
    const back = await api.get(`/v1/knowledge/sources?limit=4&before=${second.body.nextCursor}`);
    expect(back.body.data.map((s: { id: string }) => s.id)).toEqual(newestFirst.slice(3, 7));
    expect(back.body.hasMore).toBe(true);
    const front = await api.get(`/v1/knowledge/sources?limit=4&before=${back.body.nextCursor}`);
    expect(front.body.data.map((s: { id: string }) => s.id)).toEqual(newestFirst.slice(0, 3));
    expect(front.body).toMatchObject({ hasMore: false, nextCursor: null });
    const last = await api.get('/v1/knowledge/sources?limit=100');
    expect(last.body).toMatchObject({ hasMore: false, nextCursor: null });
    expect(last.body.data).toHaveLength(25);
  });

  it("filters by agentId (that agent's own sources), refuses bad limits and cursors, and never carries a cursor across filters", async () => {
    const { api } = await workspace(emulator);
    const agent = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body;
    for (let i = 0; i < 3; i++) await addText(api, { title: `Own ${i}`, text: 'x', agentId: agent.id });
    for (let i = 0; i < 2; i++) await addText(api, { title: `Pool ${i}`, text: 'x' });
    const own = await walk(api, `/v1/knowledge/sources?agentId=${agent.id}`, 2);
    expect(own.map((s) => s.title)).toEqual(['Own 2', 'Own 1', 'Own 0']);
    expect((await api.get('/v1/knowledge/sources?agentId=agt_nope')).body.code).toBe('svc.agent.not_found');
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'after=bogus', 'after=a&before=b']) {
      const res = await api.get(`/v1/knowledge/sources?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.code).toBe('svc.request.validation_failed');
    }
    expect((await api.get('/v1/knowledge/sources?limit=1')).status).toBe(200);
    expect((await api.get('/v1/knowledge/sources?limit=100')).status).toBe(200);
    const filtered = await api.get(`/v1/knowledge/sources?limit=1&agentId=${agent.id}`);
    expect((await api.get(`/v1/knowledge/sources?after=${filtered.body.nextCursor}`)).status).toBe(400);
  });
});
