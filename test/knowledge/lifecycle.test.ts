import { describe, expect, it } from 'vitest';
import { walk } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';
import { addText, openapi, settled } from './support.js';

const emulator = await fileEmulator({ seed: 4 });
const doc = await openapi(emulator);
const index = emulator.service.knowledge.index;

async function agentOf(api: Awaited<ReturnType<typeof workspace>>['api']): Promise<string> {
  return (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id;
}

describe('claims', () => {
  it('accept { es, en } as kind claim, titled by the English, and answer in both languages once ready', async () => {
    const { api, workspaceId } = await workspace(emulator);
    const agentId = await agentOf(api);
    const res = await api.post('/v1/knowledge/claims', {
      claim: { es: 'Enviamos en 24 horas.', en: 'We ship within 24 hours.' },
      topics: ['shipping'],
      agentId,
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      kind: 'claim',
      title: 'We ship within 24 hours.',
      status: 'pending',
      claim: { es: 'Enviamos en 24 horas.', en: 'We ship within 24 hours.' },
      agentId,
      topics: ['shipping'],
    });
    expectMatchesOpenApi(doc, 'POST', '/v1/knowledge/claims', 202, res.body);
    const ready = await settled(emulator, api, res.body.id);
    expect(ready).toMatchObject({ status: 'ready', chunkCount: 2, lang: 'en', summary: 'Claim stating "We ship within 24 hours.".' });
    const chunks = await index.eligibleChunks(workspaceId, agentId);
    expect(chunks.map((c) => [c.lang, c.text])).toEqual([
      ['en', 'We ship within 24 hours.'],
      ['es', 'Enviamos en 24 horas.'],
    ]);
  });

  it('refuse a claim without both languages, empty or over 2000 characters, with svc.knowledge.source_invalid', async () => {
    const { api } = await workspace(emulator);
    for (const [body, field] of [
      [{ claim: { es: 'Hola' } }, 'claim.en'],
      [{ claim: { es: '', en: 'Hi' } }, 'claim.es'],
      [{ claim: { es: 'a'.repeat(2001), en: 'Hi' } }, 'claim.es'],
      [{ claim: { es: 'Hola', en: 'Hi', fr: 'Salut' } }, 'claim.fr'],
      [{ claim: 'Hi' }, 'claim'],
      [{}, 'claim'],
    ] as const) {
      const res = await api.post('/v1/knowledge/claims', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('svc.knowledge.source_invalid');
      expect(res.body.errors[0].field).toBe(field);
    }
    expect((await api.post('/v1/knowledge/claims', { claim: { es: 'a'.repeat(2000), en: 'b' } })).status).toBe(202);
  });
});

describe('plan cap and idempotency', () => {
  it('refuses the add over the knowledgeDocuments cap with 402 naming the field, for every kind, and writes nothing', async () => {
    const { api, control, workspaceId } = await workspace(emulator);
    await control.patch(`/_emulator/workspaces/${workspaceId}`, { caps: { knowledgeDocuments: 2 } });
    await addText(api, { title: 'One', text: 'first' });
    expect((await api.post('/v1/knowledge/claims', { claim: { es: 'dos', en: 'two' } })).status).toBe(202);
    const form = new FormData();
    form.append('file', new File(['three'], 'three.txt', { type: 'text/plain' }));
    for (const res of [
      await api.post('/v1/knowledge/text', { title: 'Three', text: 'third' }),
      await api.post('/v1/knowledge/urls', { url: 'https://example.com/' }),
      await api.post('/v1/knowledge/claims', { claim: { es: 'tres', en: 'three' } }),
      await api.post('/v1/knowledge/uploads', form),
    ]) {
      expect(res.status).toBe(402);
      expect(res.body.code).toBe('svc.billing.limit_reached');
      expect(res.body.errors[0].field).toBe('knowledgeDocuments');
    }
    expect(await emulator.service.knowledge.count(workspaceId)).toBe(2);
    const first = (await walk(api, '/v1/knowledge/sources'))[1];
    await api.delete(`/v1/knowledge/sources/${first.id}`);
    expect((await api.post('/v1/knowledge/text', { title: 'Three', text: 'third' })).status).toBe(202);
  });

  it('replays an add sent again with the same Idempotency-Key: one source, one job', async () => {
    const { api } = await workspace(emulator);
    const body = { title: 'Once', text: 'Only once.' };
    const first = await api.post('/v1/knowledge/text', body, { 'idempotency-key': 'k1' });
    const again = await api.post('/v1/knowledge/text', body, { 'idempotency-key': 'k1' });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await walk(api, '/v1/knowledge/sources')).toHaveLength(1);
    expect((await api.post('/v1/knowledge/text', { ...body, text: 'Other' }, { 'idempotency-key': 'k1' })).status).toBe(422);
  });
});

describe('deletion', () => {
  it('removes a source and its chunks from answers at once', async () => {
    const { api, workspaceId } = await workspace(emulator);
    const agentId = await agentOf(api);
    const keep = await addText(api, { title: 'Keep', text: 'Bicycles are repaired in two days.' });
    const gone = await addText(api, { title: 'Gone', text: 'Kayaks are rented by the hour.', agentId });
    await emulator.drain();
    const before = await index.version(workspaceId, agentId);
    expect((await index.searchLexical(workspaceId, agentId, 'kayaks', 5)).map((h) => h.chunkId)).toHaveLength(1);
    const res = await api.delete(`/v1/knowledge/sources/${gone}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sourceId: gone, deleted: true });
    expectMatchesOpenApi(doc, 'DELETE', '/v1/knowledge/sources/{sourceId}', 200, res.body);
    expect(await index.searchLexical(workspaceId, agentId, 'kayaks', 5)).toEqual([]);
    expect((await index.eligibleChunks(workspaceId, agentId)).map((c) => c.sourceId)).toEqual([keep]);
    expect(await index.version(workspaceId, agentId)).not.toBe(before);
    expect((await api.get(`/v1/knowledge/sources/${gone}`)).status).toBe(404);
    expect((await api.delete(`/v1/knowledge/sources/${gone}`)).body.code).toBe('svc.knowledge.source_not_found');
  });

  it('of a pending source wins over its ingestion: nothing comes back', async () => {
    const { api, workspaceId } = await workspace(emulator);
    const id = await addText(api, { title: 'Short-lived', text: 'Deleted before ingestion.' });
    await api.delete(`/v1/knowledge/sources/${id}`);
    await emulator.drain();
    expect((await api.get(`/v1/knowledge/sources/${id}`)).status).toBe(404);
    expect(await index.searchLexical(workspaceId, 'agt_any', 'ingestion', 5)).toEqual([]);
  });

  it('of an agent takes its own sources and their chunks with it, and leaves the pool', async () => {
    const { api, workspaceId } = await workspace(emulator);
    const agentId = await agentOf(api);
    const other = await agentOf(api);
    await addText(api, { title: 'Own 1', text: 'Agent knowledge one.', agentId });
    await api.post('/v1/knowledge/claims', { claim: { es: 'Propio', en: 'Own' }, agentId });
    const pool = await addText(api, { title: 'Pool', text: 'Shared knowledge.' });
    await emulator.drain();
    const res = await api.delete(`/v1/agents/${agentId}`);
    expect(res.body).toEqual({ agentId, sourcesDeleted: 2 });
    expect((await walk(api, '/v1/knowledge/sources')).map((s) => s.id)).toEqual([pool]);
    expect((await index.eligibleChunks(workspaceId, agentId)).map((c) => c.sourceId)).toEqual([pool]);
    expect(await index.searchLexical(workspaceId, other, 'agent knowledge', 5)).toHaveLength(1);
  });
});

describe('failures after acceptance', () => {
  it('the control plane ingest fault fails the next ingestion with that code; the one after succeeds', async () => {
    const { api, control } = await workspace(emulator);
    expect((await control.post('/_emulator/faults', { ingest: 'unsupported_document' })).status).toBe(201);
    const failed = await addText(api, { title: 'Unlucky', text: 'This one fails.' });
    const fine = await addText(api, { title: 'Lucky', text: 'This one works.' });
    expect(await settled(emulator, api, failed)).toMatchObject({ status: 'failed', error: 'unsupported_document', chunkCount: 0, tokenCount: 0, summary: '' });
    expect((await settled(emulator, api, fine)).status).toBe('ready');
    await emulator.injectFault({ ingest: 'ingest_failed' });
    const again = await addText(api, { title: 'Again', text: 'Fails too.' });
    const source = await settled(emulator, api, again);
    expect(source).toMatchObject({ status: 'failed', error: 'ingest_failed' });
    expectMatchesOpenApi(doc, 'GET', '/v1/knowledge/sources/{sourceId}', 200, source);
  });
});
