import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, inject, it, vi } from 'vitest';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import { tempDbPath } from '../support/backends.js';
import { freshDatabase } from '../support/postgres.js';
import { client } from '../support/client.js';
import { quiet } from '../support/emulator.js';
import { addText } from './support.js';
import { lockAgentRow } from '../../src/db/row-locks.js';
import type { DatabaseOptions } from '../../src/db/database.js';

/*
 * A scope's built index kept in the store (decisions, D-308, D-600 to D-603): parts that
 * come back damaged are detected and the index built again; a deleted agent's parts go
 * with it; after a change of knowledge, the stored index of the older version is
 * brought up to date from the changed sources alone (D-610).
 */

type Db = string | DatabaseOptions;

async function reopen<T>(db: Db, fn: (emu: Emulator) => Promise<T>, log: (message: string) => void = quiet): Promise<T> {
  const emu = await createEmulator({ db, log });
  try {
    return await fn(emu);
  } finally {
    await emu.close();
  }
}

type Part = { part: number; data: Uint8Array };
async function parts(emu: Emulator, agentId: string): Promise<Part[]> {
  const rows = await emu.service.db.selectFrom('knowledge_scope_indexes').select(['part', 'data']).where('agent_id', '=', agentId).orderBy('part').execute();
  return rows.map((r) => ({ part: Number(r.part), data: Uint8Array.from(r.data) }));
}

const QUESTION = { query: 'Who polishes the lantern?', topics: ['harbour'], limit: 2 };

/** A workspace, an agent, two sources tagged with a topic, and the agent's index built and stored. */
async function setUp(db: Db) {
  return reopen(db, async (emu) => {
    const ws = await emu.createWorkspace();
    const api = client(emu, ws.apiKey.secret);
    const agentId = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id as string;
    await addText(api, { title: 'Lighthouse', text: 'The lighthouse keeper polishes the lantern every morning.', topics: ['harbour'] });
    await addText(api, { title: 'Bakery', text: 'The bakery sells rye bread and croissants.', topics: ['harbour'] });
    await emu.drain();
    const answer = (await api.post(`/v1/agents/${agentId}/query`, QUESTION)).body;
    return { key: ws.apiKey.secret, agentId, answer };
  });
}

const WORDS = [
  'anchor',
  'beacon',
  'cargo',
  'dock',
  'ferry',
  'gull',
  'hull',
  'jetty',
  'keel',
  'lantern',
  'mast',
  'net',
  'oar',
  'pier',
  'quay',
  'rope',
  'sail',
  'tide',
  'wharf',
  'buoy',
  'crane',
  'deck',
  'fog',
  'galley',
  'helm',
  'island',
  'kelp',
  'lighthouse',
  'mooring',
  'navy',
  'pilot',
  'reef',
  'salt',
  'tanker',
  'vessel',
  'wave',
  'yacht',
  'barge',
  'cabin',
  'dinghy',
];

/** A small seeded generator: the same documents every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return a / 4294967296;
  };
}

/**
 * On one store, a change of knowledge per process, each answered by bringing the index the
 * previous process stored up to date (D-610): the answers and stored rows of a full build.
 */
async function upToDate(db: Db): Promise<void> {
  const rand = seeded(11);
  const note = (n: number) => `${Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]!).join(' ')}.`;
  const { key, workspaceId, agentId, ids } = await reopen(db, async (emu) => {
    const ws = await emu.createWorkspace();
    const api = client(emu, ws.apiKey.secret);
    const agentId = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id as string;
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) {
      const topics = [['harbour'], ['galley'], [], ['harbour', 'galley']][i % 4]!;
      ids.push(await addText(api, { title: `Note ${i}`, text: note(15 + (i % 5) * 10), topics, ...(i % 2 ? { agentId } : {}) }));
    }
    await emu.drain();
    await api.post(`/v1/agents/${agentId}/query`, QUESTION);
    return { key: ws.apiKey.secret, workspaceId: ws.workspaceId, agentId, ids };
  });
  const queries = Array.from({ length: 16 }, (_, i) => ({ query: note(2 + (i % 3)), topics: i % 4 === 3 ? ['harbour'] : [], limit: 8 }));
  const answer = (emu: Emulator) => Promise.all(queries.map((q) => emu.service.retrieval.search(workspaceId, agentId, q, { refuse: false })));
  // Each change in its own process: the index stored by the previous one is of an older version.
  const changes: [string, (api: ReturnType<typeof client>) => Promise<unknown>][] = [
    // A long source moves every average field length, and so every chunk's norm.
    ['a long source added', (api) => addText(api, { title: 'Logbook', text: note(900), agentId })],
    ['a source added to a topic', (api) => addText(api, { title: 'Galley list', text: note(40), topics: ['galley'] })],
    ['sources retagged', (api) => api.post('/v1/knowledge/topics/merge', { from: 'galley', into: 'harbour' })],
    ['a source deleted', (api) => api.delete(`/v1/knowledge/sources/${ids[4]}`)],
    ['another source deleted', (api) => api.delete(`/v1/knowledge/sources/${ids[1]}`)],
  ];
  for (const [what, change] of changes) {
    const updated = await reopen(db, async (emu) => {
      const api = client(emu, key);
      await change(api);
      await emu.drain();
      const full = vi.spyOn(emu.service.knowledge.index, 'eligibleChunks');
      const answers = await answer(emu);
      expect(full, what).not.toHaveBeenCalled();
      await emu.service.flush();
      return { answers, parts: await parts(emu, agentId) };
    });
    // The same knowledge built from every chunk: the stored rows gone first.
    const built = await reopen(db, async (emu) => {
      await emu.service.db.deleteFrom('knowledge_scope_indexes').where('agent_id', '=', agentId).execute();
      const full = vi.spyOn(emu.service.knowledge.index, 'eligibleChunks');
      const answers = await answer(emu);
      expect(full, what).toHaveBeenCalled();
      await emu.service.flush();
      return { answers, parts: await parts(emu, agentId) };
    });
    expect(
      updated.answers.some((a) => a.passages.length > 0),
      what,
    ).toBe(true);
    expect(updated.answers, what).toEqual(built.answers);
    expect(updated.parts.length, what).toBeGreaterThan(2);
    expect(updated.parts, what).toEqual(built.parts);
  }
}

/** The stores kept across a restart: a SQLite file, and a database on the run's PostgreSQL server. */
const STORES: [string, () => string][] = [
  ['sqlite-file', () => tempDbPath()],
  ['postgres', () => freshDatabase(inject('postgres'), 'scope_index')],
];

describe.each(STORES)('stored scope indexes (%s)', (_, store) => {
  it('answer after a restart as the built index did, also with the nearest members of a routed topic', async () => {
    const db = store();
    const rand = seeded(7);
    // More members in the topic than a query's pool (80 at limit 20): the stored 8-bit vectors rule some out (D-602).
    // One word found in one note; the others found in none, but close in spelling to the
    // notes' words, so that the vectors tell the notes apart: most passages are the topic's nearest.
    // Ordinary English words (D-910): a word of no language would refuse the question.
    const questions = ['zephyrmark0 anchorage mastery reefer', 'zephyrmark1 tidal helmet', 'zephyrmark2 anchorage reefer helmet', 'zephyrmark3 mastery'].map(
      (query) => ({ query, topics: ['harbour'], limit: 20 }),
    );
    const { key, agentId, before } = await reopen(db, async (emu) => {
      const ws = await emu.createWorkspace();
      const api = client(emu, ws.apiKey.secret);
      const agentId = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id as string;
      for (let i = 0; i < 130; i++) {
        const words = Array.from({ length: 30 }, () => WORDS[Math.floor(rand() * WORDS.length)]!);
        if (i % 30 === 7) words.push(`zephyrmark${Math.floor(i / 30)}`);
        await addText(api, { title: `Note ${i}`, text: `${words.join(' ')}.`, topics: ['harbour'] });
      }
      await emu.drain();
      const before = [];
      for (const q of questions) before.push((await api.post(`/v1/agents/${agentId}/query`, q)).body);
      return { key: ws.apiKey.secret, agentId, before };
    });
    for (const answer of before) {
      expect(answer.passages).toHaveLength(20);
      expect(answer.strategies.topics).toBe(20);
    }
    await reopen(db, async (emu) => {
      expect((await parts(emu, agentId)).length).toBeGreaterThan(2);
      const after = [];
      for (const q of questions) after.push((await client(emu, key).post(`/v1/agents/${agentId}/query`, q)).body);
      expect(after).toEqual(before);
    });
  }, 90_000);

  it(
    'after a restart and a change of knowledge, bring the older stored index up to date: the index and answers of a full build',
    () => upToDate(store()),
    90_000,
  );

  it('after a change of knowledge, build from the chunks when the older stored index is damaged', async () => {
    const db = store();
    const { key, agentId, answer } = await setUp(db);
    const logged: string[] = [];
    const emu = await createEmulator({ db, log: (message) => logged.push(String(message)) });
    await (async () => {
      // The postings' block damaged, then a source deleted: bringing the index up to date reads every block.
      const [, block] = await parts(emu, agentId);
      const data = Uint8Array.from(block!.data);
      data[data.length - 3]! ^= 0x5a;
      await emu.service.db
        .updateTable('knowledge_scope_indexes')
        .set({ data: Buffer.from(data) })
        .where('agent_id', '=', agentId)
        .where('part', '=', 1)
        .execute();
      const api = client(emu, key);
      const sources = (await api.get('/v1/knowledge/sources')).body.data as { id: string; title: string }[];
      expect((await api.delete(`/v1/knowledge/sources/${sources.find((s) => s.title === 'Bakery')!.id}`)).status).toBe(200);
      const full = vi.spyOn(emu.service.knowledge.index, 'eligibleChunks');
      const res = await api.post(`/v1/agents/${agentId}/query`, QUESTION);
      expect(full).toHaveBeenCalled();
      expect(res.body.passages.map((p: { title: string }) => p.title)).toEqual(['Lighthouse']);
      expect(res.body.passages[0]).toEqual({ ...answer.passages[0], score: res.body.passages[0].score });
      // The operator hears why the update was given up.
      expect(logged).toContain('svc.retrieval: a stored scope index could not be brought up to date; it is built from the chunks');
    })().finally(() => emu.close());
  });

  // Part 0 is the head, part 1 the postings' only block, part 2 the topic's quantised vectors.
  for (const [what, part] of [
    ['head', 0],
    ['postings block', 1],
    ['topic vectors', 2],
  ] as const) {
    it(`detect a damaged ${what}, answer from the chunks, and store the index again`, async () => {
      const db = store();
      const { key, agentId, answer } = await setUp(db);
      expect(answer.passages.map((p: { title: string }) => p.title)).toEqual(['Lighthouse', 'Bakery']);
      const stored = await reopen(db, async (emu) => {
        const before = await parts(emu, agentId);
        expect(before.map((p) => p.part)).toEqual([0, 1, 2]);
        // One byte flipped near the end (past the head's JSON: its arrays) of one value.
        const data = Uint8Array.from(before[part]!.data);
        data[data.length - 3]! ^= 0x5a;
        await emu.service.db
          .updateTable('knowledge_scope_indexes')
          .set({ data: Buffer.from(data) })
          .where('agent_id', '=', agentId)
          .where('part', '=', part)
          .execute();
        return before;
      });
      const logged: string[] = [];
      await reopen(
        db,
        async (emu) => {
          const res = await client(emu, key).post(`/v1/agents/${agentId}/query`, QUESTION);
          expect(res.status).toBe(200);
          expect(res.body).toEqual(answer);
        },
        (message) => logged.push(message),
      );
      // A block's bytes unlike those written are said so (rows replaced by a newer version
      // are not); a damaged head is read as no stored index, and built without a word.
      if (part > 0) expect(logged).toContain('svc.retrieval: a stored scope index could not be read back whole; it is built again from the chunks');
      // Built again from the chunks and written back: the same bytes as the first build.
      expect(await reopen(db, (emu) => parts(emu, agentId))).toEqual(stored);
    });
  }

  it('go with their agent: deleting it over HTTP deletes its stored index, also one still being written', async () => {
    const db = store();
    const { key, agentId } = await setUp(db);
    const other = await reopen(db, async (emu) => {
      const api = client(emu, key);
      expect((await parts(emu, agentId)).length).toBe(3);
      const other = (await api.post('/v1/agents', { name: 'Bo', identity: { businessName: 'Acme' } })).body.id as string;
      expect((await api.post(`/v1/agents/${other}/query`, QUESTION)).body.passages.length).toBe(2);
      await emu.service.flush();
      expect((await parts(emu, other)).length).toBe(3);
      const deleted = await api.delete(`/v1/agents/${agentId}`);
      expect(deleted.status).toBe(200);
      expect(await parts(emu, agentId)).toEqual([]);
      // The other agent's index stays.
      expect((await parts(emu, other)).length).toBe(3);
      // A query builds an index that is written after it is answered; the agent is deleted before that.
      const third = (await api.post('/v1/agents', { name: 'Cy', identity: { businessName: 'Acme' } })).body.id as string;
      await api.post(`/v1/agents/${third}/query`, QUESTION);
      expect((await api.delete(`/v1/agents/${third}`)).status).toBe(200);
      return other;
    });
    // After the writes under way were awaited (close), only the agent still there has rows.
    const left = await reopen(db, (emu) => emu.service.db.selectFrom('knowledge_scope_indexes').select('agent_id').distinct().execute());
    expect(left).toEqual([{ agent_id: other }]);
  });
});

describe('stored scope indexes (pglite)', () => {
  it(
    'after a restart and a change of knowledge, bring the older stored index up to date: the index and answers of a full build',
    () =>
      // Eleven processes on PGlite, each opening its data directory: slower than the others.
      upToDate({ kind: 'pglite', dataDir: mkdtempSync(join(tmpdir(), 'svc-pglite-')) }),
    120_000,
  );
});

describe('stored scope indexes on a shared PostgreSQL', () => {
  it("an agent deleted while another process writes its index leaves none of the index's rows", async () => {
    const db = freshDatabase(inject('postgres'), 'scope_race');
    const { key, agentId } = await setUp(db);
    const writer = await createEmulator({ db, log: quiet });
    const deleter = await createEmulator({ db, log: quiet });
    try {
      const { workspace_id } = await writer.service.db.selectFrom('agents').select('workspace_id').where('id', '=', agentId).executeTakeFirstOrThrow();
      // The writing process holds the agent's row, as its index write does, until told to commit.
      let commit!: () => void;
      const told = new Promise<void>((resolve) => (commit = resolve));
      let locked!: () => void;
      const holding = new Promise<void>((resolve) => (locked = resolve));
      const writing = writer.service.db.transaction().execute(async (trx) => {
        expect(await lockAgentRow(trx, workspace_id, agentId)).toBe(true);
        await trx
          .insertInto('knowledge_scope_indexes')
          .values({ workspace_id, agent_id: agentId, part: 99, version: 'late', data: Buffer.from([1]) })
          .execute();
        locked();
        await told;
      });
      await holding;
      const deleting = client(deleter, key).delete(`/v1/agents/${agentId}`);
      // The deletion waits for the writer's row lock; then the writer commits.
      for (let waiting = 0; waiting === 0; ) {
        const row = await sql<{ n: number }>`select count(*)::int as n from pg_locks where not granted`.execute(writer.service.db);
        waiting = row.rows[0]!.n;
        if (!waiting) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      commit();
      await writing;
      expect((await deleting).status).toBe(200);
      expect(await parts(writer, agentId)).toEqual([]);
    } finally {
      await writer.close();
      await deleter.close();
    }
  });
});
