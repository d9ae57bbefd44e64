import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DatabaseOptions } from '../../../src/db/database.js';
import { createEmulator, type Emulator } from '../../../emulator/emulator.js';
import { client, walk } from '../../support/client.js';
import { quiet } from '../../support/emulator.js';

/** Keys, workspaces, agents, pagination, idempotency and state on one backend. */
export function coreCases(db: () => DatabaseOptions): void {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await createEmulator({ db: db(), seed: 1, log: quiet });
  });
  afterAll(() => emulator.close());

  it('creates, reads, lists, edits and deletes agents with identical answers', async () => {
    const ws = await emulator.createWorkspace();
    const api = client(emulator, ws.apiKey.secret);
    const created = await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme', description: 'Ñandú café' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: created.body.id,
      name: 'Ada',
      identity: { businessName: 'Acme', description: 'Ñandú café' },
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
    expect((await api.get(`/v1/agents/${created.body.id}`)).body).toEqual(created.body);
    const patched = await api.patch(`/v1/agents/${created.body.id}`, { identity: { description: 'x' } });
    expect(patched.body.identity).toEqual({ businessName: 'Acme', description: 'x' });
    expect((await api.delete(`/v1/agents/${created.body.id}`)).body).toEqual({ agentId: created.body.id, sourcesDeleted: 0 });
    expect((await api.get(`/v1/agents/${created.body.id}`)).status).toBe(404);
  });

  it('walks a list of 25 in pages of 4 without gaps or repeats', async () => {
    const ws = await emulator.createWorkspace();
    const api = client(emulator, ws.apiKey.secret);
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push((await api.post('/v1/agents', { name: `N${i}`, identity: { businessName: 'B' } })).body.id);
    expect((await walk(api, '/v1/agents', 4)).map((a) => a.id)).toEqual(ids.reverse());
  });

  it('idempotent creation, key limit and revocation behave the same', async () => {
    const ws = await emulator.createWorkspace();
    const api = client(emulator, ws.apiKey.secret);
    const body = { name: 'Once', identity: { businessName: 'B' } };
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => api.post('/v1/agents', body, { 'idempotency-key': 'same' })));
    expect(new Set(results.filter((r) => r.status === 201).map((r) => r.body.id)).size).toBe(1);
    const control = client(emulator);
    expect((await control.post(`/workspaces/${ws.workspaceId}/keys`, { name: 'b', scopes: ['chat:write'] })).status).toBe(201);
    expect((await control.post(`/workspaces/${ws.workspaceId}/keys`, { name: 'c', scopes: ['chat:write'] })).status).toBe(409);
    await control.delete(`/workspaces/${ws.workspaceId}/keys/${ws.apiKey.id}`);
    expect((await api.get('/v1/me')).status).toBe(401);
  });

  it('daily activity is counted in the store', async () => {
    const ws = await emulator.createWorkspace();
    await client(emulator).patch(`/_emulator/workspaces/${ws.workspaceId}`, { dailyActivityCap: 3 });
    const api = client(emulator, ws.apiKey.secret);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await api.get('/v1/me')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('exports and re-imports the state to the same bytes', async () => {
    const first = JSON.stringify(await emulator.exportState());
    await emulator.importState(JSON.parse(first));
    expect(JSON.stringify(await emulator.exportState())).toBe(first);
  });
}
