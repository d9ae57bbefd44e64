import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import { client } from '../support/client.js';
import { quiet } from '../support/emulator.js';
import { freshDatabase } from '../support/postgres.js';

// Processes sharing one PostgreSQL database each run the lexicon job of their own change
// (D-790): two may write one workspace's lexicon at the same moment (D-1126).
describe('PostgreSQL shared by processes: one lexicon written twice at once', () => {
  let emulator: Emulator;
  let pool: pg.Pool;

  beforeAll(async () => {
    const url = freshDatabase(inject('postgres'), 'lexicon');
    emulator = await createEmulator({ db: url, fixtures: 'none', log: quiet });
    pool = new pg.Pool({ connectionString: url, max: 2 });
  }, 60_000);

  afterAll(async () => {
    await emulator?.close();
    await pool?.end();
  });

  it('the job that writes second waits for the first and ends well: no failed job left behind', async () => {
    const ws = await emulator.createWorkspace();
    // Another process is writing this workspace's lexicon and has not committed yet.
    const other = await pool.connect();
    try {
      await other.query('BEGIN');
      await other.query(`INSERT INTO knowledge_lexicons (workspace_id, print, data) VALUES ($1, 'lx_other', '{}')`, [ws.workspaceId]);
      const added = await client(emulator, ws.apiKey.secret).post('/v1/knowledge/text', { title: 'Returns', text: 'Returns are free within 30 days.' });
      expect(added.status).toBe(202);
      // This process's lexicon job reaches the same row and waits on it.
      let waiting = 0;
      for (const until = Date.now() + 20_000; waiting === 0 && Date.now() < until; ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        waiting = (
          await pool.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%knowledge_lexicons%'`,
          )
        ).rows[0].n;
      }
      expect(waiting).toBe(1);
      await other.query('COMMIT');
    } finally {
      other.release();
    }
    await emulator.drain();
    const jobs = await pool.query('SELECT kind, status, last_error FROM jobs WHERE workspace_id = $1', [ws.workspaceId]);
    expect(jobs.rows).toEqual([]);
    // The lexicon stored is the one of the knowledge as it is, not the other writer's.
    const stored = await pool.query('SELECT print FROM knowledge_lexicons WHERE workspace_id = $1', [ws.workspaceId]);
    expect(stored.rows).toEqual([{ print: expect.stringMatching(/^lx_[0-9a-f]{24}$/) }]);
    const source = await client(emulator, ws.apiKey.secret).get(`/v1/knowledge/sources?limit=10`);
    expect(source.body.data.map((s: { status: string }) => s.status)).toEqual(['ready']);
  }, 60_000);

  it('a workspace deleted while its lexicon is written: neither waits for the other for good, no lexicon row is left', async () => {
    const ws = await emulator.createWorkspace();
    const api = client(emulator, ws.apiKey.secret);
    expect((await api.post('/v1/knowledge/text', { title: 'Returns', text: 'Returns are free within 30 days.' })).status).toBe(202);
    await emulator.drain();
    // Another process deletes the workspace the way the service does: its rows table by table, the lexicon's early, the workspace's last.
    const other = await pool.connect();
    try {
      await other.query('BEGIN');
      expect((await other.query('DELETE FROM knowledge_lexicons WHERE workspace_id = $1', [ws.workspaceId])).rowCount).toBe(1);
      expect((await api.post('/v1/knowledge/text', { title: 'Shipping', text: 'Shipping takes two days.' })).status).toBe(202);
      let waiting = 0;
      for (const until = Date.now() + 20_000; waiting === 0 && Date.now() < until; ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        waiting = (
          await pool.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%knowledge_lexicons%'`,
          )
        ).rows[0].n;
      }
      expect(waiting).toBe(1);
      const { rows: tables } = await other.query(
        `SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'workspace_id' AND table_name <> 'knowledge_lexicons' ORDER BY table_name`,
      );
      for (const { table_name: table } of tables) await other.query(`DELETE FROM "${table}" WHERE workspace_id = $1`, [ws.workspaceId]);
      await other.query('DELETE FROM workspaces WHERE id = $1', [ws.workspaceId]);
      await other.query('COMMIT');
    } finally {
      other.release();
    }
    await emulator.drain();
    expect((await pool.query('SELECT print FROM knowledge_lexicons WHERE workspace_id = $1', [ws.workspaceId])).rows).toEqual([]);
    expect((await pool.query('SELECT id FROM jobs WHERE workspace_id = $1', [ws.workspaceId])).rows).toEqual([]);
  }, 60_000);
});
