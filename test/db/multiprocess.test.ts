import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { exited, startCli, type RunningCli } from '../support/cli.js';
import { client, type ApiResponse } from '../support/client.js';
import { freshDatabase } from '../support/postgres.js';

// Three real emulator processes over one PostgreSQL database, no proxy: the test spreads
// requests over them (issue 12's multi-process proof). A short lease lets a killed
// process's jobs be taken over within the test.
const LEASE_MS = '1500';

describe('three emulator processes over one PostgreSQL database', () => {
  const track = new Set<ChildProcess>();
  let url: string;
  let procs: RunningCli[];
  let pool: pg.Pool;

  const control = (i: number) => client(procs[i % procs.length]!.url);
  const api = (i: number, key: string) => client(procs[i % procs.length]!.url, key);
  const workspace = async (settings?: Record<string, unknown>) => {
    const ws = (await control(0).post('/_emulator/workspaces', { name: 'Team' })).body;
    if (settings) expect((await control(1).patch(`/_emulator/workspaces/${ws.workspaceId}`, settings)).status).toBe(200);
    return { id: ws.workspaceId as string, key: ws.apiKey.secret as string, keyId: ws.apiKey.id as string };
  };

  beforeAll(async () => {
    url = freshDatabase(inject('postgres'), 'multi');
    pool = new pg.Pool({ connectionString: url, max: 2 });
    // Started together on an empty database: migrations and set-up run once.
    procs = await Promise.all([0, 1, 2].map(() => startCli(['--db', url, '--fixtures', 'none', '--lease', LEASE_MS], { track })));
  }, 120_000);

  afterAll(async () => {
    // A test that failed while others were stopped must not leave them deaf to SIGTERM.
    for (const child of track) {
      child.kill('SIGCONT');
      child.kill('SIGTERM');
    }
    await Promise.all([...track].map((c) => exited(c)));
    await pool?.end();
  });

  it('50 concurrent creates with one Idempotency-Key: one resource, the same answer wherever it is asked', async () => {
    const ws = await workspace();
    const body = { name: 'Once', identity: { businessName: 'B' } };
    const first = await Promise.all(Array.from({ length: 50 }, (_, i) => api(i, ws.key).post('/v1/agents', body, { 'idempotency-key': 'one-key' })));
    const created = first.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    // The contract's answer while the first request still runs is a 409; nothing else.
    for (const r of first.filter((r) => r.status !== 201)) expect([r.status, r.body.code]).toEqual([409, 'svc.idempotency.conflict']);
    expect(new Set(created.map((r) => r.text)).size).toBe(1);
    const again = await Promise.all(Array.from({ length: 50 }, (_, i) => api(i, ws.key).post('/v1/agents', body, { 'idempotency-key': 'one-key' })));
    expect(new Set(again.map((r) => `${r.status} ${r.text}`))).toEqual(new Set([`201 ${created[0]!.text}`]));
    const list = await api(2, ws.key).get('/v1/agents');
    expect(list.body.data.map((a: { id: string }) => a.id)).toEqual([created[0]!.body.id]);
  });

  it('a request whose process died before answering does not hold its Idempotency-Key: a retry elsewhere runs it', async () => {
    const ws = await workspace();
    const now = (await control(0).get('/_emulator/clock')).body.now as string;
    // What a process killed mid-request leaves: a claim naming it, and no live lease.
    await pool.query(
      `INSERT INTO idempotency (workspace_id, key_id, idem_key, fingerprint, state, status, headers, body, created_at)
       VALUES ($1, $2, 'cut-off', 'x', 'running:ins_gone', NULL, NULL, NULL, $3)`,
      [ws.id, ws.keyId, now],
    );
    const retry = await api(1, ws.key).post('/v1/agents', { name: 'Retried', identity: { businessName: 'B' } }, { 'idempotency-key': 'cut-off' });
    expect(retry.status).toBe(201);
    const replay = await api(2, ws.key).post('/v1/agents', { name: 'Retried', identity: { businessName: 'B' } }, { 'idempotency-key': 'cut-off' });
    expect([replay.status, replay.body.id]).toEqual([201, retry.body.id]);
  });

  it('a key limited to 12 requests: exactly 12 succeed across the three; a daily cap of 7 allows 7', async () => {
    const limited = await workspace({ rateLimit: { limit: 12, windowSeconds: 86_400 } });
    const answers = await Promise.all(Array.from({ length: 45 }, (_, i) => api(i, limited.key).get('/v1/me')));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(12);
    expect(answers.filter((r) => r.status === 429).every((r) => r.body.code === 'svc.rate_limit.exceeded')).toBe(true);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(33);

    const capped = await workspace({ dailyActivityCap: 7 });
    const daily = await Promise.all(Array.from({ length: 30 }, (_, i) => api(i, capped.key).get('/v1/me')));
    expect(daily.filter((r) => r.status === 200)).toHaveLength(7);
    expect(new Set(daily.filter((r) => r.status !== 200).map((r) => r.body.code))).toEqual(new Set(['svc.usage.budget_exceeded']));
  });

  it('a key revoked, a fault set, the clock advanced: each seen by the other two on their next request', async () => {
    const ws = await workspace();
    // Every process has the key in its cache.
    for (const i of [0, 1, 2]) expect((await api(i, ws.key).get('/v1/me')).status).toBe(200);
    expect((await control(0).delete(`/workspaces/${ws.id}/keys/${ws.keyId}`)).status).toBeLessThan(300);
    for (const i of [1, 2]) expect((await api(i, ws.key).get('/v1/me')).status).toBe(401);

    const other = await workspace();
    for (const i of [0, 1, 2]) expect((await api(i, other.key).get('/v1/me')).status).toBe(200);
    expect((await control(1).post('/_emulator/faults', { match: { method: 'GET', path: '/v1/me' }, status: 503 })).status).toBe(201);
    for (const i of [0, 2]) {
      const res = await api(i, other.key).get('/v1/me');
      expect([res.status, res.body.code]).toEqual([503, 'svc.service.unavailable']);
    }
    expect((await control(2).get('/_emulator/faults')).body.data).toHaveLength(1);
    expect((await control(0).delete('/_emulator/faults')).body.cleared).toBe(1);
    for (const i of [1, 2]) expect((await api(i, other.key).get('/v1/me')).status).toBe(200);

    // A fault for 2 requests fails exactly 2, whichever processes get them.
    await control(0).post('/_emulator/faults', { match: { path: '/v1/me' }, status: 500, times: 2 });
    const statuses = [];
    for (const i of [1, 2, 0, 1]) statuses.push((await api(i, other.key).get('/v1/me')).status);
    expect(statuses).toEqual([500, 500, 200, 200]);

    const before = Date.parse((await control(0).get('/_emulator/clock')).body.now);
    expect((await control(1).post('/_emulator/clock', { advanceMs: 3 * 86_400_000 })).status).toBe(200);
    for (const i of [0, 2]) {
      const now = Date.parse((await control(i).get('/_emulator/clock')).body.now);
      expect(now - before).toBeGreaterThanOrEqual(3 * 86_400_000);
      expect(now - before).toBeLessThan(3 * 86_400_000 + 60_000);
    }
  });

  it('knowledge changed through one process: the others answer from the new knowledge at once', async () => {
    const ws = await workspace();
    const agent = (await api(0, ws.key).post('/v1/agents', { name: 'Lola', identity: { businessName: 'Bikes Lola' } })).body;
    const add = async (title: string, text: string) => {
      const res = await api(0, ws.key).post('/v1/knowledge/text', { title, text, agentId: agent.id });
      expect(res.status).toBe(202);
      await control(0).post('/_emulator/queue/drain');
      return res.body.id as string;
    };
    const titles = async (i: number) =>
      (await api(i, ws.key).post(`/v1/agents/${agent.id}/query`, { query: 'How much is an electric bike?', limit: 5 })).body.passages.map(
        (p: { title: string }) => p.title,
      );
    const first = await add('Rentals', 'Electric bikes cost 30 euros a day. City bikes cost 15 euros a day.');
    // Both other processes cache the agent's index.
    for (const i of [1, 2]) expect(await titles(i)).toEqual(['Rentals']);
    expect((await api(0, ws.key).delete(`/v1/knowledge/sources/${first}`)).status).toBeLessThan(300);
    for (const i of [1, 2]) expect(await titles(i)).toEqual([]);
    await add('Prices', 'An electric bike costs 35 euros a day from June.');
    for (const i of [1, 2]) expect(await titles(i)).toEqual(['Prices']);
  });

  it('the offline web and a workspace deletion through one process hold for the others', async () => {
    const page = { url: 'https://team.example/', headers: { 'content-type': 'text/plain' }, body: 'Shared page.' };
    expect((await control(0).put('/_emulator/web', { pages: [page] })).status).toBe(200);
    for (const i of [1, 2]) expect((await control(i).get('/_emulator/web')).body.pages).toEqual([expect.objectContaining({ url: page.url, body: page.body })]);
    const ws = await workspace();
    const source = await api(1, ws.key).post('/v1/knowledge/urls', { url: page.url });
    expect(source.status).toBe(202);
    let status = 'pending';
    for (let i = 0; i < 100 && status === 'pending'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await api(i, ws.key).get(`/v1/knowledge/sources/${source.body.id}`)).body.status;
    }
    expect(status).toBe('ready');

    for (const i of [0, 1, 2]) expect((await api(i, ws.key).get('/v1/me')).status).toBe(200);
    expect((await control(2).delete(`/_emulator/workspaces/${ws.id}`)).status).toBeLessThan(300);
    for (const i of [0, 1]) expect((await api(i, ws.key).get('/v1/me')).status).toBe(401);
  });

  it('a reset through one process holds for the others', async () => {
    const ws = await workspace();
    for (const i of [0, 1, 2]) expect((await api(i, ws.key).get('/v1/me')).status).toBe(200);
    expect((await control(0).post('/_emulator/reset')).status).toBe(200);
    // Back to the (empty) fixtures: the workspace and its key are gone everywhere.
    for (const i of [1, 2]) {
      expect((await api(i, ws.key).get('/v1/me')).status).toBe(401);
      expect((await control(i).get(`/_emulator/workspaces/${ws.id}`)).status).toBe(404);
    }
  });
  it('30 sources ingesting while one process is killed with SIGKILL: all end ready on the survivors, no chunk twice', async () => {
    const ws = await workspace();
    const victim = procs[2]!;
    // Only the victim runs while the sources arrive, so the jobs it holds when it dies are
    // certain: with warm threads (D-1000) it could finish its share in under 150 ms.
    for (const p of procs.slice(0, 2)) p.child.kill('SIGSTOP');
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        api(2, ws.key).post('/v1/knowledge/text', {
          title: `Doc ${i}`,
          text: `Document ${i}. `.repeat(20) + `Section ${i} talks about shipping and returns in depth. `.repeat(30),
        }),
      ),
    );
    expect(created.map((r) => r.status)).toEqual(Array(30).fill(202));
    // Let it take jobs, then kill it mid-run; the others wake well inside their lease.
    let held: { instance_id: string; n: number }[] = [];
    for (const until = Date.now() + 10_000; held.length === 0 && Date.now() < until; ) {
      held = (await pool.query('SELECT instance_id, count(*)::int AS n FROM job_leases GROUP BY instance_id')).rows;
    }
    victim.child.kill('SIGKILL');
    for (const p of procs.slice(0, 2)) p.child.kill('SIGCONT');
    await exited(victim.child);
    procs = procs.slice(0, 2);

    const deadline = Date.now() + 60_000;
    let sources: { id: string; status: string; chunkCount?: number }[] = [];
    while (Date.now() < deadline) {
      const res: ApiResponse<any> = await api(Date.now(), ws.key).get('/v1/knowledge/sources?limit=100');
      sources = res.body.data;
      if (sources.length === 30 && sources.every((s) => s.status !== 'pending')) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(sources.map((s) => s.status)).toEqual(Array(30).fill('ready'));
    const { rows: twice } = await pool.query(
      'SELECT source_id, position, count(*) AS n FROM knowledge_chunks WHERE workspace_id = $1 GROUP BY source_id, position HAVING count(*) > 1',
      [ws.id],
    );
    expect(twice).toEqual([]);
    const { rows: counts } = await pool.query('SELECT source_id, count(*)::int AS n FROM knowledge_chunks WHERE workspace_id = $1 GROUP BY source_id', [ws.id]);
    expect(counts).toHaveLength(30);
    // The killed process held jobs when it died (its lease is the one that lapsed): the survivors ran them.
    const { rows: lapsed } = await pool.query('SELECT id FROM instances WHERE lease_until < (extract(epoch from clock_timestamp()) * 1000)::bigint');
    expect(lapsed).toHaveLength(1);
    expect(held.find((h) => h.instance_id === lapsed[0].id)?.n ?? 0).toBeGreaterThan(0);
    // No job is left behind either: the last source to settle queues the lexicon job (D-790),
    // which a survivor runs once none is pending, perhaps a moment after they all read ready.
    let left = -1;
    for (const until = Date.now() + 30_000; left !== 0 && Date.now() < until; ) {
      left = (await pool.query('SELECT count(*)::int AS n FROM jobs WHERE workspace_id = $1', [ws.id])).rows[0].n;
      if (left !== 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(left).toBe(0);
  }, 90_000);
});
