import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DatabaseOptions } from '../../../src/db/database.js';
import { createEmulator, type Emulator } from '../../../emulator/emulator.js';
import { client, walk } from '../../support/client.js';
import { quiet } from '../../support/emulator.js';
import { GOLDEN, fingerprint } from '../../knowledge/golden.js';
import { transaction } from '../../../src/db/transaction.js';
import { TermDictionary } from '../../../src/knowledge/term-dictionary.js';

/** Ingestion output, full-text search and state round trips of knowledge on one backend. */
export function knowledgeCases(db: () => DatabaseOptions): void {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await createEmulator({ db: db(), seed: 1, log: quiet });
  });
  afterAll(() => emulator.close());

  async function fresh() {
    const ws = await emulator.createWorkspace();
    const api = client(emulator, ws.apiKey.secret);
    const agentId = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id as string;
    return { ...ws, api, agentId };
  }

  const add = async (api: ReturnType<typeof client>, body: object) => (await api.post('/v1/knowledge/text', body)).body.id as string;

  it('golden documents give the same chunks, vectors, counts and summaries as everywhere else', async () => {
    for (const g of GOLDEN) {
      const { api, workspaceId, agentId } = await fresh();
      const id = await add(api, { title: g.title, text: g.text });
      await emulator.drain();
      const source = (await api.get(`/v1/knowledge/sources/${id}`)).body;
      expect([source.lang, source.chunkCount, source.tokenCount, source.summary]).toEqual([
        g.expected.lang,
        g.expected.chunkCount,
        g.expected.tokenCount,
        g.expected.summary,
      ]);
      expect(fingerprint(await emulator.service.knowledge.index.eligibleChunks(workspaceId, agentId))).toBe(g.expected.fingerprint);
    }
  });

  it("full-text search folds accents both ways and stays within the agent's eligible chunks", async () => {
    const { api, workspaceId, agentId } = await fresh();
    const other = (await api.post('/v1/agents', { name: 'Bob', identity: { businessName: 'B' } })).body.id;
    await add(api, { title: 'Café', text: 'El café abre a las ocho. Llame al teléfono para reservar.' });
    await add(api, { title: 'Cafe', text: 'The cafe has a telephone and a phone box.', agentId });
    await add(api, { title: 'Secret', text: 'Another café, only for Bob.', agentId: other });
    await emulator.drain();
    const index = emulator.service.knowledge.index;
    const titles = async (query: string) => {
      const chunks = new Map((await index.eligibleChunks(workspaceId, agentId)).map((c) => [c.chunkId, c.title]));
      return (await index.searchLexical(workspaceId, agentId, query, 10)).map((h) => chunks.get(h.chunkId));
    };
    expect((await titles('cafe')).sort()).toEqual(['Cafe', 'Café']);
    expect((await titles('CAFÉ')).sort()).toEqual(['Cafe', 'Café']);
    expect(await titles('telefono reservar')).toEqual(['Café']);
    expect(await titles('bob')).toEqual([]);
  });

  it('a state export and import keeps chunks, vectors, search and the version, and search follows later deletes', async () => {
    const { api, workspaceId, agentId } = await fresh();
    const keep = await add(api, { title: 'Keep', text: 'Tandem bicycles are rented by the day.', topics: ['rentals'] });
    const drop = await add(api, { title: 'Drop', text: 'Unicycles are repaired on Fridays.', agentId });
    await emulator.drain();
    const index = emulator.service.knowledge.index;
    const before = {
      print: fingerprint(await index.eligibleChunks(workspaceId, agentId)),
      search: await index.searchLexical(workspaceId, agentId, 'tandem unicycles', 10),
      version: await index.version(workspaceId, agentId),
    };
    const state = await emulator.exportState();
    await emulator.importState(JSON.parse(JSON.stringify(state)));
    expect(fingerprint(await index.eligibleChunks(workspaceId, agentId))).toBe(before.print);
    expect((await index.searchLexical(workspaceId, agentId, 'tandem unicycles', 10)).map((h) => h.chunkId).sort()).toEqual(
      before.search.map((h) => h.chunkId).sort(),
    );
    expect(await index.version(workspaceId, agentId)).toBe(before.version);
    expect((await api.delete(`/v1/knowledge/sources/${drop}`)).status).toBe(200);
    expect(await index.searchLexical(workspaceId, agentId, 'unicycles', 10)).toEqual([]);
    expect((await index.eligibleChunks(workspaceId, agentId)).map((c) => c.sourceId)).toEqual([keep]);
    expect((await api.get('/v1/knowledge/topics')).body.data).toEqual([{ topic: 'rentals', sourceCount: 1 }]);
  });

  it('dropping a workspace drops its chunks from search; sources list, count and merge behave the same', async () => {
    const { api, workspaceId, agentId } = await fresh();
    for (let i = 0; i < 5; i++) await add(api, { title: `Doc ${i}`, text: `Kayak number ${i}.`, topics: ['kayaks', `k${i}`] });
    await emulator.drain();
    expect((await walk(api, '/v1/knowledge/sources', 2)).map((s) => s.title)).toEqual(['Doc 4', 'Doc 3', 'Doc 2', 'Doc 1', 'Doc 0']);
    expect(await emulator.service.knowledge.count(workspaceId)).toBe(5);
    expect((await api.post('/v1/knowledge/topics/merge', { from: 'kayaks', into: 'boats' })).body.sourcesUpdated).toBe(5);
    expect(await emulator.service.knowledge.index.searchLexical(workspaceId, agentId, 'kayak', 10)).toHaveLength(5);
    await emulator.deleteWorkspace(workspaceId);
    expect(await emulator.service.knowledge.index.searchLexical(workspaceId, agentId, 'kayak', 10)).toEqual([]);
    expect(await emulator.service.knowledge.count(workspaceId)).toBe(0);
  });

  it('terms given ids in one go, more than one insert holds, are stored with exactly those ids', async () => {
    const { workspaceId } = await fresh();
    const db = emulator.service.db;
    const letters = (n: number) => Array.from({ length: 3 }, (_, k) => String.fromCharCode(97 + (Math.floor(n / 26 ** k) % 26))).join('');
    // 1,123 terms: two full inserts of 500, then 123 split into inserts of 64, 32, 16, 8 and 3 rows.
    const terms = Array.from({ length: 1123 }, (_, i) => `zq${letters(i)}`);
    const first = new TermDictionary(db);
    const given = new Map(await transaction(db, (trx) => first.assign(trx, workspaceId, [...terms.slice(0, 7), ...terms])));
    expect(given.size).toBe(1123);
    // Then one more term, and a few: the statements compiled for those counts are used again.
    await transaction(db, (trx) => first.assign(trx, workspaceId, ['zqlast']));
    const stored = await new TermDictionary(db).get(workspaceId);
    expect(new Map(stored)).toEqual(new Map([...given, ['zqlast', 1123]]));
    expect([...given.values()].sort((a, b) => a - b)).toEqual(Array.from({ length: 1123 }, (_, i) => i));
  });
}
