import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import { freePort, runToEnd } from '../support/cli.js';
import { client } from '../support/client.js';
import { quiet } from '../support/emulator.js';
import { startCluster, type PgCluster } from '../support/postgres.js';

describe('PostgreSQL: a database out of reach', () => {
  let cluster: PgCluster;
  let emulator: Emulator | undefined;

  // A cluster of its own: this file stops and restarts it.
  beforeAll(async () => {
    cluster = await startCluster({ durable: true });
  }, 60_000);

  afterAll(async () => {
    await emulator?.close().catch(() => {});
    cluster?.destroy();
  });

  it('at start: one line naming the host, never the password, exit 1', async () => {
    const port = await freePort();
    const refused = await runToEnd(['--port', '0', '--db', `postgres://app:Sup3rSecret@127.0.0.1:${port}/team`]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `svc-emulator: cannot open the PostgreSQL database at 127.0.0.1:${port}/team: connection refused (is PostgreSQL running and listening there?)\n`,
    );

    const missing = await runToEnd(['--port', '0', '--db', cluster.url('no_such_db').replace('svc@', 'svc:Sup3rSecret@')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain(`at 127.0.0.1:${cluster.port}/no_such_db: `);
    expect(missing.stderr).toContain('no_such_db');
    expect(missing.stderr).not.toContain('Sup3rSecret');

    const unknown = await runToEnd(['--port', '0', '--db', 'postgresql://app:Sup3rSecret@db.invalid:5432/team']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('svc-emulator: cannot open the PostgreSQL database at db.invalid:5432/team: no such host\n');
  }, 60_000);

  it('while running: 503 svc.service.unavailable, nothing half-written, and back when the database is', async () => {
    const url = cluster.createDatabase('lost');
    emulator = await createEmulator({ db: url, fixtures: 'none', log: quiet });
    const ws = await emulator.createWorkspace();
    const api = client(emulator, ws.apiKey.secret);
    expect((await api.get('/v1/me')).status).toBe(200);
    expect((await api.post('/v1/agents', { name: 'Before', identity: { businessName: 'B' } })).status).toBe(201);

    cluster.stop();
    for (const send of [
      () => api.get('/v1/me'),
      () => api.post('/v1/agents', { name: 'During', identity: { businessName: 'B' } }),
      () => api.get('/v1/agents'),
    ]) {
      const res = await send();
      expect([res.status, res.body.code]).toEqual([503, 'svc.service.unavailable']);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }

    cluster.start();
    let back = 0;
    for (let i = 0; i < 100 && back !== 200; i++) {
      back = (await api.get('/v1/me')).status;
      if (back !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(back).toBe(200);
    const agents = await api.get('/v1/agents');
    expect(agents.body.data.map((a: { name: string }) => a.name)).toEqual(['Before']);
    expect((await api.post('/v1/agents', { name: 'After', identity: { businessName: 'B' } })).status).toBe(201);
  }, 60_000);
});
