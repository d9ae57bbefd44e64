import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import { client } from '../support/client.js';
import { quiet } from '../support/emulator.js';
import { againstOtherWriter as againstOtherWriterIn, type Statement, waitersOnLock as waitersOnLockIn } from '../support/other-writer.js';
import { freshDatabase } from '../support/postgres.js';
import { upload } from '../assets/support.js';

// Processes sharing one PostgreSQL database write one workspace at the same moment: each
// runs the lexicon job of its own change (D-790, D-1126), and one deletes the workspace
// while another commits ingested sources (D-1127), and requests that delete or update
// sources meet such a commit (D-1128); a deadlock nobody foresaw answers 503 and a job it
// aborts runs again (D-1129). A second connection plays the other
// process, holding its transaction open at the point that matters.
describe('PostgreSQL shared by processes: writers meeting on one workspace', () => {
  let emulator: Emulator;
  let pool: pg.Pool;

  beforeAll(async () => {
    const url = freshDatabase(inject('postgres'), 'lexicon');
    emulator = await createEmulator({ db: url, fixtures: 'none', log: quiet });
    pool = new pg.Pool({ connectionString: url, max: 2 });
  }, 60_000);

  const waitersOnLock = (like: string) => waitersOnLockIn(pool, like);
  const againstOtherWriter = <A>(before: Statement[], request: () => Promise<A>, after: Statement[]) => againstOtherWriterIn(pool, before, request, after);

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
      expect(await waitersOnLock('%knowledge_lexicons%')).toBe(1);
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
      expect(await waitersOnLock('%knowledge_lexicons%')).toBe(1);
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

  it('a workspace deleted while another process commits its sources: the deletion waits, then answers 200, never a 500', async () => {
    const ws = await emulator.createWorkspace();
    const api = client(emulator, ws.apiKey.secret);
    expect((await api.post('/v1/knowledge/text', { title: 'Returns', text: 'Returns are free within 30 days.' })).status).toBe(202);
    await emulator.drain();
    // The other process's ingestion commit: the workspace's row first (its term
    // dictionary), then the sources it makes ready.
    const { otherError, answer } = await againstOtherWriter(
      [['UPDATE workspaces SET id = id WHERE id = $1', [ws.workspaceId]]],
      () => client(emulator).delete(`/_emulator/workspaces/${ws.workspaceId}`),
      [['UPDATE knowledge_sources SET updated_at = updated_at WHERE workspace_id = $1', [ws.workspaceId]]],
    );
    expect(otherError).toBeUndefined();
    expect(answer.status).toBe(200);
    expect((await api.get('/v1/me')).status).toBe(401);
    expect((await pool.query('SELECT id FROM knowledge_sources WHERE workspace_id = $1', [ws.workspaceId])).rows).toEqual([]);
  }, 60_000);

  /**
   * Another process commits the first ingestion of `sourceId` the way the service does
   * (the workspace's row, the source made ready, then its stored document deleted) while
   * `request` runs here, started once the source is updated; resolves with the other
   * process's error, if any, and the request's answer.
   */
  async function againstIngestionCommit(workspaceId: string, sourceId: string, request: () => Promise<{ status: number }>) {
    // The source as it is before its first commit: pending, its document stored.
    await pool.query(`UPDATE knowledge_sources SET status = 'pending' WHERE id = $1`, [sourceId]);
    await pool.query(`INSERT INTO knowledge_inputs (source_id, workspace_id, content, created_at) VALUES ($1, $2, $3, '2026-01-01T00:00:00.000Z')`, [
      sourceId,
      workspaceId,
      Buffer.from('stored document'),
    ]);
    return againstOtherWriter(
      [
        ['UPDATE workspaces SET id = id WHERE id = $1', [workspaceId]],
        [`UPDATE knowledge_sources SET status = 'ready' WHERE id = $1`, [sourceId]],
      ],
      request,
      [['DELETE FROM knowledge_inputs WHERE source_id = $1', [sourceId]]],
    );
  }

  it('a source deleted while another process commits its ingestion: the deletion waits, then answers 200, never a 500', async () => {
    const ws = await emulator.createWorkspace();
    const api = client(emulator, ws.apiKey.secret);
    const added = await api.post('/v1/knowledge/text', { title: 'Returns', text: 'Returns are free within 30 days.' });
    await emulator.drain();
    const { otherError, answer } = await againstIngestionCommit(ws.workspaceId, added.body.id, () => api.delete(`/v1/knowledge/sources/${added.body.id}`));
    expect(otherError).toBeUndefined();
    expect(answer.status).toBe(200);
    expect((await api.get(`/v1/knowledge/sources/${added.body.id}`)).status).toBe(404);
    expect((await pool.query('SELECT source_id FROM knowledge_inputs WHERE workspace_id = $1', [ws.workspaceId])).rows).toEqual([]);
  }, 60_000);

  it('an agent deleted while another process commits its sources: the deletion waits, then answers 200, never a 500', async () => {
    const ws = await emulator.createWorkspace();
    const api = client(emulator, ws.apiKey.secret);
    const agent = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body;
    const added = await api.post('/v1/knowledge/text', { title: 'Returns', text: 'Returns are free within 30 days.', agentId: agent.id });
    await emulator.drain();
    const { otherError, answer } = await againstIngestionCommit(ws.workspaceId, added.body.id, () => api.delete(`/v1/agents/${agent.id}`));
    expect(otherError).toBeUndefined();
    expect(answer.status).toBe(200);
    expect((await api.get(`/v1/agents/${agent.id}`)).status).toBe(404);
    expect((await pool.query('SELECT id FROM knowledge_sources WHERE workspace_id = $1', [ws.workspaceId])).rows).toEqual([]);
  }, 60_000);

  it('a source added for an agent, or a page set to answer with it, while another process deletes the agent: each waits, then finds it gone (D-1132)', async () => {
    const ws = await emulator.createWorkspace();
    const api = client(emulator, ws.apiKey.secret);
    const site = (await api.post('/v1/projects', { name: 'Site', slug: `agents-${process.pid}` })).body;
    const keeper = (await api.post('/v1/agents', { name: 'Bo', identity: { businessName: 'Acme' } })).body;
    const page = (await api.post(`/v1/projects/${site.id}/pages`, { name: 'Help', kind: 'agent', path: '/help', agentId: keeper.id })).body;
    const writes = [
      (agentId: string) => api.post('/v1/knowledge/text', { title: 'Late', text: 'Added while the agent went.', agentId }),
      (agentId: string) => api.post(`/v1/projects/${site.id}/pages`, { name: 'Chat', kind: 'agent', path: '/chat', agentId }),
      (agentId: string) => api.patch(`/v1/pages/${page.id}`, { agentId }),
    ];
    for (const write of writes) {
      const agent = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body;
      // The other process's agent deletion: the workspace's row, the agent's, then its cascades.
      const { otherError, answer } = await againstOtherWriter(
        [
          ['UPDATE workspaces SET id = id WHERE id = $1', [ws.workspaceId]],
          ['DELETE FROM agents WHERE id = $1', [agent.id]],
        ],
        () => write(agent.id),
        [['DELETE FROM knowledge_sources WHERE agent_id = $1', [agent.id]]],
      );
      expect(otherError).toBeUndefined();
      expect([404, 400]).toContain(answer.status);
      expect(answer.body.code).toMatch(/^svc\.(agent\.not_found|page\.invalid)$/);
      for (const table of ['knowledge_sources', 'pages']) {
        expect((await pool.query(`SELECT id FROM ${table} WHERE agent_id = $1`, [agent.id])).rows).toEqual([]);
      }
    }
  }, 90_000);

  it('a source, an agent, a site, a page, an asset or a key created while another process deletes the workspace: each waits, then finds it gone and leaves no row (D-1140)', async () => {
    const creations = [
      {
        table: 'knowledge_sources',
        create: (api: ReturnType<typeof client>) => api.post('/v1/knowledge/text', { title: 'Late', text: 'Added while the workspace went.' }),
      },
      { table: 'agents', create: (api: ReturnType<typeof client>) => api.post('/v1/agents', { name: 'Late', identity: { businessName: 'Acme' } }) },
      { table: 'projects', create: (api: ReturnType<typeof client>) => api.post('/v1/projects', { name: 'Late', slug: `late-ws-${process.pid}` }) },
      { table: 'assets', create: (api: ReturnType<typeof client>) => upload(api, 'image.png') },
      {
        table: 'api_keys',
        // A console route: its workspace is named in its path.
        refused: [404, 'svc.tenant.not_found'],
        create: (_api: ReturnType<typeof client>, _siteId: string | undefined, workspaceId: string) =>
          client(emulator).post(`/workspaces/${workspaceId}/keys`, { name: 'late', scopes: ['knowledge:read'] }),
      },
      {
        table: 'pages',
        // Its site went with the workspace, and is what it reads first after the wait.
        refused: [404, 'svc.project.not_found'],
        create: async (api: ReturnType<typeof client>, siteId?: string, _workspaceId?: string) =>
          api.post(`/v1/projects/${siteId}/pages`, { name: 'Doc', kind: 'document', path: '/doc', body: { en: 'Hello' } }),
      },
    ];
    for (const { table, create, refused = [401, 'svc.api_key.invalid'] } of creations) {
      const ws = await emulator.createWorkspace();
      const api = client(emulator, ws.apiKey.secret);
      const site = (await api.post('/v1/projects', { name: 'Site', slug: `ws-gone-${table.replace('_', '-')}-${process.pid}` })).body;
      // The other process's workspace deletion: the workspace's row first, then its rows, the workspace's last.
      const { otherError, answer } = await againstOtherWriter(
        [['UPDATE workspaces SET id = id WHERE id = $1', [ws.workspaceId]]],
        () => create(api, site.id, ws.workspaceId),
        [
          ...['knowledge_sources', 'agents', 'project_slugs', 'projects', 'pages', 'api_keys'].map(
            (t): Statement => [`DELETE FROM ${t} WHERE workspace_id = $1`, [ws.workspaceId]],
          ),
          ['DELETE FROM workspaces WHERE id = $1', [ws.workspaceId]],
        ],
      );
      expect(otherError).toBeUndefined();
      expect([answer.status, answer.body.code]).toEqual(refused);
      expect((await pool.query(`SELECT id FROM ${table} WHERE workspace_id = $1`, [ws.workspaceId])).rows).toEqual([]);
    }
  }, 120_000);

  it('a chat turn while another process deletes the workspace: it waits to spend its credit, then answers 401 svc.api_key.invalid, not 402, and records nothing', async () => {
    const ws = await emulator.createWorkspace();
    const api = client(emulator, ws.apiKey.secret);
    const agent = (await api.post('/v1/agents', { name: 'Late', identity: { businessName: 'Acme' } })).body;
    expect((await api.post('/v1/knowledge/text', { title: 'Returns', text: 'Returns are free within 30 days.', agentId: agent.id })).status).toBe(202);
    await emulator.drain();
    const { otherError, answer } = await againstOtherWriter(
      [['UPDATE workspaces SET id = id WHERE id = $1', [ws.workspaceId]]],
      () => api.post(`/v1/agents/${agent.id}/chat`, { message: 'Are returns free?' }),
      [
        ...['knowledge_sources', 'conversations', 'agents', 'api_keys'].map((t): Statement => [`DELETE FROM ${t} WHERE workspace_id = $1`, [ws.workspaceId]]),
        ['DELETE FROM workspaces WHERE id = $1', [ws.workspaceId]],
      ],
    );
    expect(otherError).toBeUndefined();
    expect([answer.status, answer.body.code]).toEqual([401, 'svc.api_key.invalid']);
    expect((await pool.query('SELECT id FROM conversations WHERE workspace_id = $1', [ws.workspaceId])).rows).toEqual([]);
  }, 60_000);

  it('a key created while another process creates the second one: it waits, then counts both and refuses a third (D-1140)', async () => {
    const ws = await emulator.createWorkspace();
    const control = client(emulator);
    // The other process's creation: the workspace's row, then its key (the second active one), not committed yet.
    const { otherError, answer } = await againstOtherWriter(
      [
        ['UPDATE workspaces SET id = id WHERE id = $1', [ws.workspaceId]],
        [
          `INSERT INTO api_keys (id, workspace_id, name, prefix, env, hash, scopes, created_at, expires_at, revoked_at)
           VALUES ('key_other', $1, 'other', 'svc_test_oth', 'test', 'other-hash', '["knowledge:read"]', '2026-01-01T00:00:00.000Z', NULL, NULL)`,
          [ws.workspaceId],
        ],
      ],
      () => control.post(`/workspaces/${ws.workspaceId}/keys`, { name: 'third', scopes: ['knowledge:read'] }),
      [],
    );
    expect(otherError).toBeUndefined();
    expect([answer.status, answer.body.code]).toEqual([409, 'svc.api_key.limit_reached']);
    const active = await pool.query('SELECT count(*)::int AS n FROM api_keys WHERE workspace_id = $1 AND revoked_at IS NULL', [ws.workspaceId]);
    expect(active.rows[0].n).toBe(2);
  }, 60_000);

  it('topics merged while another process commits the same sources in another order: the merge waits, then answers 200', async () => {
    const ws = await emulator.createWorkspace();
    const api = client(emulator, ws.apiKey.secret);
    const first = await api.post('/v1/knowledge/text', { title: 'Returns', text: 'Returns are free within 30 days.', topics: ['policy'] });
    const second = await api.post('/v1/knowledge/text', { title: 'Shipping', text: 'Shipping takes two days.', topics: ['policy'] });
    await emulator.drain();
    // The other process's commit takes the sources in the order opposite to the one the merge reads them in.
    const { otherError, answer } = await againstOtherWriter(
      [
        ['UPDATE workspaces SET id = id WHERE id = $1', [ws.workspaceId]],
        ['UPDATE knowledge_sources SET updated_at = updated_at WHERE id = $1', [second.body.id]],
      ],
      () => api.post('/v1/knowledge/topics/merge', { from: 'policy', into: 'policies' }),
      [['UPDATE knowledge_sources SET updated_at = updated_at WHERE id = $1', [first.body.id]]],
    );
    expect(otherError).toBeUndefined();
    expect(answer.status).toBe(200);
    expect(answer.body.sourcesUpdated).toBe(2);
  }, 60_000);

  it("a request the database aborts as a deadlock's victim answers 503 svc.service.unavailable and changes nothing", async () => {
    const ws = await emulator.createWorkspace();
    const api = client(emulator, ws.apiKey.secret);
    const added = await api.post('/v1/knowledge/text', { title: 'Returns', text: 'Returns are free within 30 days.', topics: ['policy'] });
    await emulator.drain();
    // A writer that takes a source's row and then the workspace's, against the order every
    // writer here keeps: the database must abort one of the two, and lets this one wait longest.
    const { otherError, answer } = await againstOtherWriter(
      [[`SET LOCAL deadlock_timeout = '10s'`], ['UPDATE knowledge_sources SET updated_at = updated_at WHERE id = $1', [added.body.id]]],
      () => api.post('/v1/knowledge/topics/merge', { from: 'policy', into: 'policies' }),
      [['UPDATE workspaces SET id = id WHERE id = $1', [ws.workspaceId]]],
    );
    expect(otherError).toBeUndefined();
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('svc.service.unavailable');
    expect(answer.body.detail).toMatch(/nothing was changed/);
    expect((await api.get(`/v1/knowledge/sources/${added.body.id}`)).body.topics).toEqual(['policy']);
    // Run again, it goes through.
    expect((await api.post('/v1/knowledge/topics/merge', { from: 'policy', into: 'policies' })).status).toBe(200);
  }, 60_000);

  it("an ingestion commit aborted as a deadlock's victim runs again: the source ends ready, no failed job", async () => {
    const ws = await emulator.createWorkspace();
    const api = client(emulator, ws.apiKey.secret);
    let sourceId: string | undefined;
    // The other writer must hold the source's stored document before the commit reaches
    // it; when ingestion wins that race, try again with another source.
    for (let attempt = 0; attempt < 5 && !sourceId; attempt++) {
      const added = await api.post('/v1/knowledge/text', { title: `Returns ${attempt}`, text: 'Returns are free within 30 days.' });
      const other = await pool.connect();
      try {
        await other.query('BEGIN');
        await other.query(`SET LOCAL deadlock_timeout = '10s'`);
        const held = await other.query('SELECT source_id FROM knowledge_inputs WHERE source_id = $1 FOR UPDATE', [added.body.id]);
        if (held.rowCount === 0) {
          await other.query('ROLLBACK');
          continue;
        }
        // The commit has the workspace's row and waits on the document; this writer then waits on the row.
        expect(await waitersOnLock('%knowledge_inputs%')).toBe(1);
        await other.query('UPDATE workspaces SET id = id WHERE id = $1', [ws.workspaceId]);
        await other.query('COMMIT');
        sourceId = added.body.id;
      } finally {
        other.release();
      }
    }
    expect(sourceId).toBeDefined();
    await emulator.drain();
    expect((await api.get(`/v1/knowledge/sources/${sourceId}`)).body.status).toBe('ready');
    expect((await pool.query(`SELECT kind, last_error FROM jobs WHERE workspace_id = $1 AND status = 'failed'`, [ws.workspaceId])).rows).toEqual([]);
  }, 60_000);
});
