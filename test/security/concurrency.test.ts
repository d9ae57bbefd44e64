import { describe, expect, it } from 'vitest';
import { client, walk } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';

const emulator = await fileEmulator({ seed: 88 });
const control = client(emulator);

describe('concurrency', () => {
  it.each([
    ['/v1/agents', { name: 'Once', identity: { businessName: 'B' } }, '/v1/agents'],
    ['/v1/knowledge/text', { title: 'Once', text: 'Only one copy of me.' }, '/v1/knowledge/sources'],
    ['/v1/projects', { name: 'Once', slug: 'once-only' }, '/v1/projects'],
  ])('50 parallel POST %s with one Idempotency-Key create exactly one resource', async (path, body, list) => {
    const { api, workspaceId } = await workspace(emulator);
    await control.patch(`/_emulator/workspaces/${workspaceId}`, { rateLimit: { limit: 1000 } });
    const results = await Promise.all(Array.from({ length: 50 }, () => api.post(path, body, { 'idempotency-key': 'fifty' })));
    const created = new Set(results.filter((r) => r.status < 300).map((r) => r.body.id));
    expect(created.size).toBe(1);
    for (const r of results.filter((x) => x.status >= 300)) {
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('svc.idempotency.conflict');
    }
    expect(await walk(api, list)).toHaveLength(1);
  });

  it('20 workspaces claiming one slug at once leave exactly one owner', async () => {
    const claimants = await Promise.all(Array.from({ length: 20 }, () => workspace(emulator)));
    const results = await Promise.all(claimants.map((w) => w.api.post('/v1/projects', { name: 'Contested', slug: 'contested' })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expect(r.body.code).toBe('svc.project.slug_taken');
    const owners = await Promise.all(claimants.map(async (w) => (await w.api.get('/v1/projects')).body.data.length));
    expect(owners.reduce((a, b) => a + b, 0)).toBe(1);
  });

  it('parallel chat turns never spend more credits than exist', async () => {
    const { api, workspaceId } = await workspace(emulator);
    await control.patch(`/_emulator/workspaces/${workspaceId}`, { credits: 3 });
    const agent = (await api.post('/v1/agents', { name: 'A', identity: { businessName: 'B' } })).body;
    const turns = await Promise.all(Array.from({ length: 12 }, (_, i) => api.post(`/v1/agents/${agent.id}/chat`, { message: `Question ${i}?` })));
    expect(turns.filter((t) => t.status === 200)).toHaveLength(3);
    for (const t of turns.filter((x) => x.status !== 200)) expect(t.body.code).toBe('svc.usage.quota_exhausted');
    expect((await api.get('/v1/usage')).body.messages).toEqual({ used: 3, limit: 3, remaining: 0 });
  });
});
