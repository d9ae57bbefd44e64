import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DatabaseOptions } from '../../../src/db/database.js';
import { createEmulator, type Emulator } from '../../../emulator/emulator.js';
import { client } from '../../support/client.js';
import { quiet } from '../../support/emulator.js';
import { ingest, readEvents, streamRequest } from '../../agents/support.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../fixtures/relevance/${name}`, import.meta.url), 'utf8'));

/** Retrieval, chat turns, credits, conversations and their state on one backend. */
export function agentsCases(db: () => DatabaseOptions): void {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await createEmulator({ db: db(), seed: 2, log: quiet });
  });
  afterAll(() => emulator.close());

  async function fresh(credits?: number) {
    const ws = await emulator.createWorkspace(credits === undefined ? {} : { credits });
    const api = client(emulator, ws.apiKey.secret);
    const control = client(emulator);
    const agentId = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id as string;
    return { ...ws, key: ws.apiKey.secret, api, control, agentId };
  }

  it('the labelled relevance set ranks as well: 90% first, all within the top 3', async () => {
    const { api, control, agentId } = await fresh();
    const documents: { id: string; owner: string; title: string; text: string; topics: string[] }[] = fixture('documents.json').documents;
    const queries: { query: string; expected: string }[] = fixture('queries.json').queries;
    const other = (await api.post('/v1/agents', { name: 'Sol', identity: { businessName: 'Sol' } })).body.id;
    const ids = await ingest(
      api,
      control,
      documents.map((d) => ({
        title: d.title,
        text: d.text,
        topics: d.topics,
        ...(d.owner !== 'pool' && { agentId: d.owner === 'agent' ? agentId : other }),
      })),
    );
    const label = new Map(ids.map((id, i) => [id, documents[i]!.id]));
    let first = 0;
    for (const q of queries) {
      const ranked = (await api.post(`/v1/agents/${agentId}/query`, { query: q.query, limit: 3 })).body.passages.map((p: { sourceId: string }) =>
        label.get(p.sourceId),
      );
      expect(ranked, q.query).toContain(q.expected);
      if (ranked[0] === q.expected) first++;
    }
    expect(first / queries.length).toBeGreaterThanOrEqual(0.9);
  });

  it('answers from knowledge, continues a conversation, and caches until the knowledge changes', async () => {
    const { api, control, agentId } = await fresh();
    await ingest(api, control, [
      { title: 'Madrid store', text: 'The Madrid store opens from 10:00 to 20:00. The phone number of the Madrid store is 910 000 111.', agentId },
      { title: 'Barcelona store', text: 'The Barcelona store opens from 9:00 to 21:00. The phone number of the Barcelona store is 930 000 222.' },
    ]);
    const chat = (body: object) => api.post(`/v1/agents/${agentId}/chat`, body);
    const first = await chat({ message: 'When does the Madrid store open?' });
    expect(first.body.reply).toMatch(/^The Madrid store opens from 10:00 to 20:00\./);
    expect(first.body.cached).toBe(false);
    const followUp = await chat({ message: 'And its phone number?', conversationId: first.body.conversationId });
    expect(followUp.body.reply).toBe('The phone number of the Madrid store is 910 000 111.');
    expect((await chat({ message: 'when does the madrid store open' })).body.cached).toBe(true);
    await ingest(api, control, [{ title: 'Valencia store', text: 'The Valencia store opens at 11:00.', agentId }]);
    expect((await chat({ message: 'When does the Madrid store open?' })).body.cached).toBe(false);
  });

  it('parallel turns never spend more credits than exist; a replay spends nothing', async () => {
    const { api, agentId } = await fresh(4);
    const chat = (message: string, headers?: Record<string, string>) => api.post(`/v1/agents/${agentId}/chat`, { message }, headers);
    const first = await chat('Hello', { 'idempotency-key': 'once' });
    expect((await chat('Hello', { 'idempotency-key': 'once' })).headers.get('idempotent-replayed')).toBe('true');
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => chat(`Question ${i}`)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(results.filter((r) => r.status === 402).every((r) => r.body.code === 'svc.usage.quota_exhausted')).toBe(true);
    expect((await api.get('/v1/usage')).body.messages).toEqual({ used: 4, limit: 4, remaining: 0 });
    expect(first.status).toBe(200);
  });

  it('a streamed turn records its answer; conversations survive a state export and import', async () => {
    const { api, key, agentId } = await fresh();
    const events = await readEvents(await streamRequest(emulator, key, agentId, { message: 'Hello there' }));
    const done = events.at(-1)!.data;
    expect(done.reply).toBe(
      events
        .filter((e) => e.event === 'token')
        .map((e) => e.data.text)
        .join(''),
    );
    await emulator.importState(JSON.parse(JSON.stringify(await emulator.exportState())));
    const again = await api.post(`/v1/agents/${agentId}/chat`, { message: 'hello there' });
    expect(again.body).toMatchObject({ reply: done.reply, cached: true });
    const continued = await api.post(`/v1/agents/${agentId}/chat`, { message: 'Do you sell bikes?', conversationId: done.conversationId });
    expect(continued.body.conversationId).toBe(done.conversationId);
  });

  it('deleting the agent deletes its conversations', async () => {
    const { api, agentId, workspaceId } = await fresh();
    const { conversationId } = (await api.post(`/v1/agents/${agentId}/chat`, { message: 'Hello' })).body;
    expect((await api.delete(`/v1/agents/${agentId}`)).status).toBe(200);
    const left = await emulator.service.db.selectFrom('conversations').select('id').where('workspace_id', '=', workspaceId).execute();
    expect(left.map((r) => r.id)).not.toContain(conversationId);
  });
}
