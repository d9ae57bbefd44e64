import { describe, expect, inject, it } from 'vitest';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import { freshDatabase } from '../support/postgres.js';
import { client } from '../support/client.js';
import { quiet } from '../support/emulator.js';
import { addText } from './support.js';

/*
 * A stored scope index read lazily (decisions, D-600, D-601): its blocks are read when a
 * query first needs them, so on a store shared by several processes another process may
 * replace them with a newer version's rows in between.
 */

const QUESTION = { query: 'Who polishes the lantern?', limit: 3 };

async function rows(emu: Emulator, agentId: string) {
  const found = await emu.service.db
    .selectFrom('knowledge_scope_indexes')
    .select(['part', 'version', 'data'])
    .where('agent_id', '=', agentId)
    .orderBy('part')
    .execute();
  return found.map((r) => ({ part: Number(r.part), version: r.version, data: Uint8Array.from(r.data) }));
}

describe('stored scope indexes on a shared PostgreSQL', () => {
  it('a query whose blocks another process replaced meanwhile answers from the current knowledge, and keeps its stored index', async () => {
    const db = freshDatabase(inject('postgres'), 'scope_replaced');
    const first = await createEmulator({ db, log: quiet });
    const { key, agentId } = await (async () => {
      try {
        const ws = await first.createWorkspace();
        const api = client(first, ws.apiKey.secret);
        const agentId = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id as string;
        await addText(api, { title: 'Lighthouse', text: 'The lighthouse keeper polishes the lantern every morning.' });
        await addText(api, { title: 'Bakery', text: 'The bakery sells rye bread and croissants.' });
        await first.drain();
        expect((await api.post(`/v1/agents/${agentId}/query`, QUESTION)).body.passages).toHaveLength(1);
        return { key: ws.apiKey.secret, agentId };
      } finally {
        await first.close();
      }
    })();

    const reader = await createEmulator({ db, log: quiet });
    const writer = await createEmulator({ db, log: quiet });
    try {
      const before = await rows(reader, agentId);
      expect(before.map((r) => r.part)).toEqual([0, 1]);
      let current: unknown;
      let afterWrite: Awaited<ReturnType<typeof rows>> = [];
      const store = reader.service.knowledge.index.scopeIndexes!;
      const readBlocks = store.readBlocks.bind(store);
      let replaced = 0;
      // The reader has its head (the version it read) and now wants a block: the writer
      // adds a source and stores the new version's index first, deleting the old blocks.
      store.readBlocks = async (...args) => {
        if (replaced++ === 0) {
          const api = client(writer, key);
          await addText(api, { title: 'Harbour', text: 'The harbour master polishes the brass lantern of the pier at dusk.' });
          await writer.drain();
          current = (await api.post(`/v1/agents/${agentId}/query`, QUESTION)).body;
          await writer.service.flush();
          afterWrite = await rows(writer, agentId);
        }
        return readBlocks(...args);
      };
      const res = await client(reader, key).post(`/v1/agents/${agentId}/query`, QUESTION);
      expect(replaced).toBeGreaterThan(0);
      expect(res.status).toBe(200);
      expect(res.body.passages.map((p: { title: string }) => p.title).sort()).toEqual(['Harbour', 'Lighthouse']);
      expect(res.body).toEqual(current);
      await reader.service.flush();
      // The newer version's index stays stored as its process wrote it: not replaced by a
      // build labelled with the version the reader started from.
      expect(afterWrite.map((r) => r.version)).not.toContain(before[0]!.version);
      expect(await rows(reader, agentId)).toEqual(afterWrite);
    } finally {
      await reader.close();
      await writer.close();
    }
  });
});
