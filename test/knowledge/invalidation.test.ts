import { afterAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { afterCommit, transaction } from '../../src/db/transaction.js';
import type { SqlKnowledgeIndex } from '../../src/knowledge/sql-index.js';
import { quiet, workspace } from '../support/emulator.js';
import { addText, settled } from './support.js';

// Knowledge caches learn of a change from the transaction that made it (D-960): the
// index's `changed` asks for that transaction, and its effect runs once it commits.
const emulator = await createEmulator({ seed: 31, log: quiet });
const index = emulator.service.knowledge.index as SqlKnowledgeIndex;
const db = emulator.service.db;
afterAll(() => emulator.close());

async function agentWithSource(text: string) {
  const ws = await workspace(emulator);
  const agentId = (await ws.api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id as string;
  const sourceId = await addText(ws.api, { title: 'Hours', text });
  expect((await settled(emulator, ws.api, sourceId)).status).toBe('ready');
  return { ...ws, agentId, sourceId };
}

const query = (ws: Awaited<ReturnType<typeof agentWithSource>>, q: string) => ws.api.post(`/v1/agents/${ws.agentId}/query`, { query: q });

describe('a change of knowledge reaches the caches through its transaction', () => {
  it('every write through the API is announced: a read after each finds memory and store agreeing', async () => {
    const ws = await agentWithSource('The bakery opens at seven on weekdays.');
    expect((await query(ws, 'when does the bakery open')).body.passages.length).toBeGreaterThan(0);
    await ws.api.post('/v1/knowledge/topics/merge', { from: 'none', into: 'hours' });
    const second = await addText(ws.api, { title: 'Bread', text: 'Sourdough bread is baked every morning.' });
    await settled(emulator, ws.api, second);
    expect((await query(ws, 'sourdough bread')).body.passages[0].sourceId).toBe(second);
    expect((await ws.api.delete(`/v1/knowledge/sources/${second}`)).status).toBe(200);
    expect((await query(ws, 'sourdough bread')).body.passages.every((p: { sourceId: string }) => p.sourceId !== second)).toBe(true);
    expect(await index.unannounced(ws.workspaceId, ws.agentId)).toEqual([]);
  });

  it('a write that records no invalidation is found by the audit the whole suite runs after every read', async () => {
    const ws = await agentWithSource('The bakery opens at seven on weekdays.');
    await query(ws, 'when does the bakery open');
    // What a forgetful write does: the row changes in the store, nothing tells memory.
    await db.updateTable('knowledge_sources').set({ title: 'Renamed behind the cache' }).where('id', '=', ws.sourceId).execute();
    if (emulator.service.coherence.shared) {
      // Other processes write a shared store unannounced: every read checks memory against it first.
      expect(await index.unannounced(ws.workspaceId, ws.agentId)).toEqual([]);
      expect((await query(ws, 'when does the bakery open')).body.passages[0].title).toBe('Renamed behind the cache');
    } else {
      const stale = await index.unannounced(ws.workspaceId, ws.agentId);
      expect(stale).toContain(`the chunks of ${ws.sourceId}`);
      expect(stale).toContain(`the knowledge version of ${ws.agentId}`);
    }
    // The same write with its invalidation on the transaction: nothing stale.
    await transaction(db, async (trx) => {
      await trx.updateTable('knowledge_sources').set({ title: 'Renamed' }).where('id', '=', ws.sourceId).execute();
      index.changed(trx, ws.workspaceId, [ws.sourceId]);
    });
    expect(await index.unannounced(ws.workspaceId, ws.agentId)).toEqual([]);
    expect((await query(ws, 'when does the bakery open')).body.passages[0].title).toBe('Renamed');
  });

  it('an effect runs after the commit, never before it and never on a rollback; a finished transaction takes none', async () => {
    const seen: string[] = [];
    let kept: Parameters<Parameters<typeof transaction>[1]>[0] | undefined;
    await transaction(db, async (trx) => {
      kept = trx;
      afterCommit(trx, () => seen.push('committed'));
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual(['committed']);
    await expect(
      transaction(db, async (trx) => {
        afterCommit(trx, () => seen.push('rolled back'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(seen).toEqual(['committed']);
    expect(() => afterCommit(kept!, () => seen.push('late'))).toThrow(/over/);
  });

  it('only a transaction opened by transaction() can carry a change (checked by the compiler)', async () => {
    await db.transaction().execute(async (trx) => {
      // @ts-expect-error a plain kysely transaction has nowhere to keep the effect until its commit
      expect(() => index.changed(trx, 'ws_x')).toThrow(/over/);
      // @ts-expect-error the same for the coherence between processes
      await emulator.service.coherence.changed(trx);
    });
    // @ts-expect-error no transaction at all: the hand-called invalidation after a commit is gone
    expect(() => index.changed('ws_x')).toThrow();
  });
});
