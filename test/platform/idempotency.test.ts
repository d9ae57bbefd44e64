import { describe, expect, it } from 'vitest';
import { client, send } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';

const emulator = await fileEmulator({ seed: 5 });
const agent = (name = 'A') => ({ name, identity: { businessName: 'B' } });
const count = async (api: ReturnType<typeof client>) => (await api.get('/v1/agents?limit=100')).body.data.length;

describe('Idempotency-Key', () => {
  it('replays the first 2xx with Idempotent-Replayed: true and creates nothing twice', async () => {
    const { api } = await workspace(emulator);
    const first = await api.post('/v1/agents', agent(), { 'idempotency-key': 'k1' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // Same body with other key order and spacing is the same request.
    const again = await send(emulator, 'POST', '/v1/agents', {
      key: api.key,
      body: ' { "identity": {"businessName":"B"}, "name":"A" } ',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'k1' },
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(again.headers.get('x-ratelimit-limit')).toBe('600');
    expect(await count(api)).toBe(1);
  });

  it('the same key with another body is 422 svc.idempotency.conflict', async () => {
    const { api } = await workspace(emulator);
    await api.post('/v1/agents', agent('A'), { 'idempotency-key': 'k' });
    const res = await api.post('/v1/agents', agent('Other'), { 'idempotency-key': 'k' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('svc.idempotency.conflict');
    expect(await count(api)).toBe(1);
  });

  it('a failed first request stores nothing: the key may be retried', async () => {
    const { api } = await workspace(emulator);
    const bad = await api.post('/v1/agents', { name: '' }, { 'idempotency-key': 'retry' });
    expect(bad.status).toBe(400);
    const good = await api.post('/v1/agents', agent(), { 'idempotency-key': 'retry' });
    expect(good.status).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('is scoped to the API key', async () => {
    const ws = await workspace(emulator);
    const second = (await client(emulator).post(`/workspaces/${ws.workspaceId}/keys`, { name: 'two', scopes: ['landings:write', 'landings:read'] })).body;
    const a = await ws.api.post('/v1/agents', agent(), { 'idempotency-key': 'shared' });
    const b = await client(emulator, second.secret).post('/v1/agents', agent(), { 'idempotency-key': 'shared' });
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);
  });

  it('is kept 24 hours of emulated time', async () => {
    const { api } = await workspace(emulator);
    const first = await api.post('/v1/agents', agent(), { 'idempotency-key': 'day' });
    await emulator.clock.advance(24 * 3600_000 - 1);
    expect((await api.post('/v1/agents', agent(), { 'idempotency-key': 'day' })).body.id).toBe(first.body.id);
    await emulator.clock.advance(1);
    const later = await api.post('/v1/agents', agent(), { 'idempotency-key': 'day' });
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
  });

  it('keys are 1..255 characters', async () => {
    const { api } = await workspace(emulator);
    expect((await api.post('/v1/agents', agent(), { 'idempotency-key': 'x'.repeat(255) })).status).toBe(201);
    const long = await api.post('/v1/agents', agent(), { 'idempotency-key': 'x'.repeat(256) });
    expect(long.status).toBe(400);
    expect(long.body.code).toBe('svc.request.validation_failed');
    expect(long.body.errors[0].field).toBe('Idempotency-Key');
    expect(await count(api)).toBe(1);
  });

  it('concurrent identical requests create exactly one resource; the others replay or get 409', async () => {
    const { api } = await workspace(emulator);
    const results = await Promise.all(Array.from({ length: 20 }, () => api.post('/v1/agents', agent(), { 'idempotency-key': 'race' })));
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const conflicts = results.filter((r) => r.status === 409);
    conflicts.forEach((r) => expect(r.body.code).toBe('svc.idempotency.conflict'));
    expect(new Set(results.filter((r) => r.status === 201).map((r) => r.body.id)).size).toBe(1);
    expect(await count(api)).toBe(1);
  });

  it('GET, PATCH and DELETE ignore the header', async () => {
    const { api } = await workspace(emulator);
    const a = (await api.post('/v1/agents', agent())).body;
    const p1 = await api.patch(`/v1/agents/${a.id}`, { name: 'One' }, { 'idempotency-key': 'p' });
    const p2 = await api.patch(`/v1/agents/${a.id}`, { name: 'Two' }, { 'idempotency-key': 'p' });
    expect([p1.body.name, p2.body.name]).toEqual(['One', 'Two']);
  });
});
