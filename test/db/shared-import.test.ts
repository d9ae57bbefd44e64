import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import { client } from '../support/client.js';
import { quiet } from '../support/emulator.js';
import { againstOtherWriter, waitersOnLock } from '../support/other-writer.js';
import { freshDatabase } from '../support/postgres.js';

// Two emulators on one PostgreSQL database; one imports a state (as `reset` does) while
// the other has read the knowledge. A state carries no term ids (they are derived), so
// the import gives them again from the start; the other process must drop what it
// derived from the old ones, or it stores new chunks under ids that now name other
// terms, or none, and no process finds them (D-1133).
describe('PostgreSQL shared by processes: a state imported by one of them', () => {
  const emulators: Emulator[] = [];
  let url: string;
  let pool: pg.Pool;

  beforeAll(async () => {
    url = freshDatabase(inject('postgres'), 'import');
    emulators.push(await createEmulator({ db: url, fixtures: 'none', log: quiet }), await createEmulator({ db: url, fixtures: 'none', log: quiet }));
    pool = new pg.Pool({ connectionString: url, max: 2 });
  }, 60_000);

  afterAll(async () => {
    for (const emulator of emulators) await emulator.close();
    await pool?.end();
  });

  /** A fresh workspace with one agent: a client for it through any emulator, and the titles an emulator answers a query with. */
  async function workspaceWithAgent(emulator: Emulator) {
    const ws = await emulator.createWorkspace();
    const via = (on: Emulator) => client(on, ws.apiKey.secret);
    const agentId = (await via(emulator).post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id;
    const titles = async (on: Emulator, query: string) =>
      ((await via(on).post(`/v1/agents/${agentId}/query`, { query, topics: [] })).body.passages as { title: string }[]).map((p) => p.title);
    return { via, titles };
  }

  it('a job the other process runs without a request in between uses the emulated time one of them moved the clock to', async () => {
    const [mover, other] = emulators as [Emulator, Emulator];
    const { via } = await workspaceWithAgent(mover);
    await mover.service.pause();
    try {
      expect((await client(mover).post('/_emulator/clock', { advanceMs: 3_600_000 })).status).toBe(200);
      const added = (await via(mover).post('/v1/knowledge/text', { title: 'Hours', text: 'The shop opens at nine in the morning.' })).body;
      // The other process's job runner ingests it, with no request to bring that process up to date.
      expect(await other.service.jobs.drain()).toBeGreaterThan(0);
      const source = (await via(mover).get(`/v1/knowledge/sources/${added.id}`)).body;
      expect(source.status).toBe('ready');
      // Ready an hour before it was added, by the clock the other process had before the move.
      expect(Date.parse(source.updatedAt)).toBeGreaterThanOrEqual(Date.parse(source.createdAt));
    } finally {
      await mover.service.start();
    }
  }, 60_000);

  it('the other process drops the knowledge it derived: what it ingests next is found by every process', async () => {
    const [importer, other] = emulators as [Emulator, Emulator];
    const { via, titles } = await workspaceWithAgent(importer);

    await via(importer).post('/v1/knowledge/text', { title: 'Hours', text: 'The shop opens at nine in the morning.' });
    await importer.drain();
    const state = await importer.exportState();
    // The other process learns terms the state does not hold.
    await via(other).post('/v1/knowledge/text', { title: 'Parking', text: 'Parking is behind the bakery, free for customers.' });
    await other.drain();
    expect(await titles(other, 'where is parking')).toEqual(['Parking']);

    await importer.importState(state);
    expect(await titles(importer, 'when does the shop open')).toEqual(['Hours']);
    expect((await via(other).post('/v1/knowledge/text', { title: 'Bakery', text: 'The bakery sells bread and cakes.' })).status).toBe(202);
    await other.drain();
    const late = await createEmulator({ db: url, fixtures: 'none', log: quiet });
    emulators.push(late);
    for (const emulator of [importer, other, late]) expect(await titles(emulator, 'does the bakery sell bread')).toEqual(['Bakery']);
  }, 60_000);

  it('a job the other process runs without a request in between still stores its chunks under the imported term ids', async () => {
    const [importer, other] = emulators as [Emulator, Emulator];
    const { via, titles: found } = await workspaceWithAgent(importer);

    // The other process learns the ids of words the state will not hold (their source goes before the export).
    const gone = (await via(other).post('/v1/knowledge/text', { title: 'Gone', text: 'Zephyrine quokkas wander.' })).body.id;
    await via(other).post('/v1/knowledge/text', { title: 'Hours', text: 'The shop opens at nine in the morning.' });
    await other.drain();
    await importer.drain();
    expect(await found(other, 'zephyrine quokkas')).toEqual(['Gone']);
    expect((await via(importer).delete(`/v1/knowledge/sources/${gone}`)).status).toBe(200);
    await importer.importState(await importer.exportState());
    expect(await found(importer, 'when does the shop open')).toEqual(['Hours']);

    // A source added now is ingested by the other process's job runner, which no request
    // brought up to date: the words it knew before the import must not keep their old ids.
    await importer.service.pause();
    try {
      const zoo = (await via(importer).post('/v1/knowledge/text', { title: 'Zoo', text: 'Zephyrine quokkas live at the zoo.' })).body.id;
      expect(await other.service.jobs.drain()).toBeGreaterThan(0);
      expect((await via(importer).get(`/v1/knowledge/sources/${zoo}`)).body.status).toBe('ready');
    } finally {
      await importer.service.start();
    }
    for (const emulator of [importer, other]) expect(await found(emulator, 'zephyrine quokkas')).toEqual(['Zoo']);
  }, 60_000);

  it('an export reads every table as of one moment: a site and its brand committed by another process while it reads are in it both or not at all (D-1134)', async () => {
    const [exporter] = emulators as [Emulator];
    const ws = await exporter.createWorkspace();
    const api = client(exporter, ws.apiKey.secret);
    const site = (await api.post('/v1/projects', { name: 'Late', slug: `late-${process.pid}` })).body;
    expect((await api.patch(`/v1/projects/${site.id}/brand`, { footer: { text: { en: 'Late' } } })).status).toBe(200);
    // The site and its brand leave the store, to come back in one commit during the export.
    for (const table of ['projects', 'project_slugs', 'brands']) {
      const key = table === 'projects' ? 'id' : 'project_id';
      await pool.query(`CREATE TABLE held_${table} AS SELECT * FROM ${table} WHERE ${key} = $1`.replace('$1', `'${site.id}'`));
      await pool.query(`DELETE FROM ${table} WHERE ${key} = $1`, [site.id]);
    }
    const other = await pool.connect();
    let exported: ReturnType<Emulator['exportState']>;
    try {
      await other.query('BEGIN');
      // The export reads the sites, then waits on a table it reads later (assets) until
      // the other process has committed the site and its brand (read after assets).
      await other.query('LOCK TABLE assets IN ACCESS EXCLUSIVE MODE');
      exported = exporter.exportState();
      expect(await waitersOnLock(pool, '%assets%')).toBe(1);
      for (const table of ['projects', 'project_slugs', 'brands']) await other.query(`INSERT INTO ${table} SELECT * FROM held_${table}`);
      await other.query('COMMIT');
    } finally {
      other.release();
    }
    const state = await exported!;
    const named = (table: string) => (state.tables[table] ?? []).filter((row) => row.id === site.id || row.project_id === site.id).length;
    expect([named('projects'), named('brands')]).toEqual([0, 0]);
    await exporter.importState(state);
    for (const table of ['projects', 'project_slugs', 'brands']) await pool.query(`DROP TABLE held_${table}`);
  }, 60_000);

  it('an import meets a writer in another process: it waits for the writer and goes in, never a deadlock (D-1135)', async () => {
    const [importer] = emulators as [Emulator];
    const ws = await importer.createWorkspace();
    const api = client(importer, ws.apiKey.secret);
    await api.post('/v1/knowledge/text', { title: 'Hours', text: 'The shop opens at nine in the morning.' });
    await importer.drain();
    const state = await importer.exportState();
    // The other process's ingestion commit: the workspace's row first (D-1127), then its sources.
    const { otherError } = await againstOtherWriter(
      pool,
      [['UPDATE workspaces SET id = id WHERE id = $1', [ws.workspaceId]]],
      () => importer.importState(state),
      [['UPDATE knowledge_sources SET updated_at = updated_at WHERE workspace_id = $1', [ws.workspaceId]]],
    );
    expect(otherError).toBeUndefined();
    expect(((await api.get('/v1/knowledge/sources')).body.data as { title: string }[]).map((s) => s.title)).toEqual(['Hours']);
  }, 60_000);
});
