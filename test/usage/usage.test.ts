import { describe, expect, it } from 'vitest';
import { send } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';

const emulator = await fileEmulator({ seed: 64 });
const doc = (await send(emulator, 'GET', '/v1/openapi.json')).body;
const DAY = 24 * 3600_000;
const agentBody = (name = 'Ada') => ({ name, identity: { businessName: 'Acme' } });

describe('GET /v1/usage', () => {
  it('a new workspace: 1,000 credits, nothing counted but its owner seat, no caps, this request as activity', async () => {
    const { api } = await workspace(emulator);
    const res = await api.get('/v1/usage');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      messages: { used: 0, limit: 1000, remaining: 1000 },
      counts: { projects: 0, agents: 0, pages: 0, knowledgeDocuments: 0, customDomains: 0, seats: 1 },
      caps: { projects: null, agents: null, pages: null, knowledgeDocuments: null, customDomains: null, seats: null },
      activity: { today: 1, cap: null },
    });
    expectMatchesOpenApi(doc, 'GET', '/v1/usage', 200, res.body);
  });

  it('counts what the workspace holds, and only its own', async () => {
    const { api } = await workspace(emulator);
    const other = await workspace(emulator);
    const agent = (await api.post('/v1/agents', agentBody())).body;
    await api.post('/v1/agents', agentBody('Bo'));
    const site = (await api.post('/v1/projects', { name: 'Counted site', slug: 'counted-site' })).body;
    await api.post(`/v1/projects/${site.id}/pages`, { name: 'Home', kind: 'agent', path: '/', agentId: agent.id });
    await api.post(`/v1/projects/${site.id}/pages`, { name: 'About', kind: 'document', path: '/about' });
    await api.post(`/v1/projects/${site.id}/pages`, { name: 'Prices', kind: 'document', path: '/prices' });
    await api.post('/v1/knowledge/text', { title: 'Hours', text: 'Open every day from 9 to 5.' });
    await api.post('/v1/knowledge/claims', { claim: { es: 'Envío gratis', en: 'Free shipping' }, agentId: agent.id });
    expect((await api.get('/v1/usage')).body.counts).toEqual({ projects: 1, agents: 2, pages: 3, knowledgeDocuments: 2, customDomains: 0, seats: 1 });
    expect((await other.api.get('/v1/usage')).body.counts).toMatchObject({ projects: 0, agents: 0, pages: 0 });
    await api.delete(`/v1/projects/${site.id}`);
    expect((await api.get('/v1/usage')).body.counts).toMatchObject({ projects: 0, agents: 2, pages: 0 });
  });

  it('shows messages spent by chat turns against the credits the control plane sets', async () => {
    const { api, control, workspaceId } = await workspace(emulator);
    const agent = (await api.post('/v1/agents', agentBody())).body;
    for (const message of ['Hola', 'What do you sell?']) expect((await api.post(`/v1/agents/${agent.id}/chat`, { message })).status).toBe(200);
    expect((await api.get('/v1/usage')).body.messages).toEqual({ used: 2, limit: 1000, remaining: 998 });
    await control.patch(`/_emulator/workspaces/${workspaceId}`, { credits: 3 });
    expect((await api.get('/v1/usage')).body.messages).toEqual({ used: 2, limit: 3, remaining: 1 });
    expect((await api.post(`/v1/agents/${agent.id}/chat`, { message: 'One more' })).status).toBe(200);
    expect((await api.get('/v1/usage')).body.messages).toEqual({ used: 3, limit: 3, remaining: 0 });
    const refused = await api.post(`/v1/agents/${agent.id}/chat`, { message: 'And another' });
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('svc.usage.quota_exhausted');
    expect((await api.get('/v1/usage')).body.messages).toEqual({ used: 3, limit: 3, remaining: 0 });
    await control.patch(`/_emulator/workspaces/${workspaceId}`, { credits: 1 });
    expect((await api.get('/v1/usage')).body.messages).toEqual({ used: 3, limit: 1, remaining: 0 });
  });

  it("counts today's authenticated requests on the emulated UTC day, against the daily cap", async () => {
    const { api, control, workspaceId } = await workspace(emulator);
    await control.patch(`/_emulator/workspaces/${workspaceId}`, { dailyActivityCap: 5 });
    await api.get('/v1/me');
    await api.get('/v1/agents/agt_missing');
    expect((await api.get('/v1/usage')).body.activity).toEqual({ today: 3, cap: 5 });
    expect((await api.get('/v1/usage')).body.activity).toEqual({ today: 4, cap: 5 });
    expect((await api.get('/v1/usage')).body.activity).toEqual({ today: 5, cap: 5 });
    const over = await api.get('/v1/usage');
    expect(over.status).toBe(429);
    expect(over.body.code).toBe('svc.usage.budget_exceeded');
    expect(over.headers.get('retry-after')).toBeNull();
    await emulator.clock.advance(DAY);
    expect((await api.get('/v1/usage')).body.activity).toEqual({ today: 1, cap: 5 });
  });

  it('shows the caps the control plane sets, null meaning none', async () => {
    const { api, control, workspaceId } = await workspace(emulator);
    const caps = { projects: 3, agents: 5, pages: 10, knowledgeDocuments: 50, customDomains: 1, seats: 2 };
    expect((await control.patch(`/_emulator/workspaces/${workspaceId}`, { caps })).status).toBe(200);
    expect((await api.get('/v1/usage')).body.caps).toEqual(caps);
    await control.patch(`/_emulator/workspaces/${workspaceId}`, { caps: { agents: null } });
    expect((await api.get('/v1/usage')).body.caps).toEqual({ ...caps, agents: null });
  });

  it('needs analytics:read', async () => {
    const { api } = await workspace(emulator, { scopes: ['projects:read', 'landings:read', 'knowledge:read', 'assets:read', 'brand:read'] });
    const res = await api.get('/v1/usage');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('svc.api_key.scope_missing');
    const analyst = await workspace(emulator, { scopes: ['analytics:read'] });
    expect((await analyst.api.get('/v1/usage')).status).toBe(200);
  });
});
