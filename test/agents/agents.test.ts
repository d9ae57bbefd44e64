import { describe, expect, it } from 'vitest';
import { fileEmulator, workspace } from '../support/emulator.js';
import { walk } from '../support/client.js';
import { expectMatchesOpenApi } from '../support/openapi.js';
import { ingest } from './support.js';

const emulator = await fileEmulator({ seed: 3 });
const doc = (await (await emulator.request('/v1/openapi.json')).json()) as Parameters<typeof expectMatchesOpenApi>[0];
const agent = (over: Record<string, unknown> = {}) => ({ name: 'Ada', identity: { businessName: 'Acme', description: 'Bikes and repairs' }, ...over });

describe('agents CRUD', () => {
  it('creates (201), gets, lists newest first, all matching the OpenAPI description', async () => {
    const { api } = await workspace(emulator);
    const created = await api.post('/v1/agents', agent());
    expect(created.status).toBe(201);
    expectMatchesOpenApi(doc, 'POST', '/v1/agents', 201, created.body);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^agt_[0-9a-z]{26}$/),
      name: 'Ada',
      identity: { businessName: 'Acme', description: 'Bikes and repairs' },
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
    const second = (await api.post('/v1/agents', agent({ name: 'Bob', identity: { businessName: 'B' } }))).body;
    expect(second.identity.description).toBe('');
    expect((await api.get(`/v1/agents/${created.body.id}`)).body).toEqual(created.body);
    const list = await api.get('/v1/agents');
    expectMatchesOpenApi(doc, 'GET', '/v1/agents', 200, list.body);
    expect(list.body.data.map((a: { id: string }) => a.id)).toEqual([second.id, created.body.id]);
    expect((await walk(api, '/v1/agents', 1)).map((a) => a.id)).toEqual([second.id, created.body.id]);
  });

  it('patches only what is sent', async () => {
    const { api } = await workspace(emulator);
    const { id } = (await api.post('/v1/agents', agent())).body;
    await emulator.clock.advance(1000);
    const patched = await api.patch(`/v1/agents/${id}`, { identity: { description: 'Only bikes' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Ada', identity: { businessName: 'Acme', description: 'Only bikes' } });
    expect(patched.body.updatedAt > patched.body.createdAt).toBe(true);
    expect((await api.patch(`/v1/agents/${id}`, { name: 'Eve' })).body).toMatchObject({ name: 'Eve', identity: { description: 'Only bikes' } });
    expect((await api.patch(`/v1/agents/${id}`, {})).body.name).toBe('Eve');
  });

  it('validates at the bounds with svc.agent.invalid naming the field, and writes nothing', async () => {
    const { api } = await workspace(emulator);
    expect(
      (await api.post('/v1/agents', agent({ name: 'n'.repeat(80), identity: { businessName: 'b'.repeat(120), description: 'd'.repeat(2000) } }))).status,
    ).toBe(201);
    for (const [body, field] of [
      [agent({ name: 'n'.repeat(81) }), 'name'],
      [agent({ name: '  ' }), 'name'],
      [agent({ identity: { businessName: 'b'.repeat(121) } }), 'identity.businessName'],
      [agent({ identity: { businessName: '' } }), 'identity.businessName'],
      [agent({ identity: { businessName: 'B', description: 'd'.repeat(2001) } }), 'identity.description'],
      [{ name: 'Ada' }, 'identity'],
      [agent({ theme: {} }), 'theme'],
    ] as const) {
      const res = await api.post('/v1/agents', body);
      expect(res.status, field).toBe(400);
      expect(res.body.code).toBe('svc.agent.invalid');
      expect(res.body.errors[0].field).toBe(field);
    }
    expect((await api.get('/v1/agents')).body.data).toHaveLength(1);
    const id = (await api.get('/v1/agents')).body.data[0].id;
    const bad = await api.patch(`/v1/agents/${id}`, { name: '' });
    expect(bad.body.code).toBe('svc.agent.invalid');
  });

  it('an unknown agent, or one of another workspace, is 404 svc.agent.not_found', async () => {
    const mine = await workspace(emulator);
    const theirs = await workspace(emulator);
    const foreign = (await theirs.api.post('/v1/agents', agent())).body.id;
    for (const id of ['agt_unknown', foreign]) {
      expect((await mine.api.get(`/v1/agents/${id}`)).body.code).toBe('svc.agent.not_found');
      expect((await mine.api.patch(`/v1/agents/${id}`, { name: 'X' })).body.code).toBe('svc.agent.not_found');
      expect((await mine.api.delete(`/v1/agents/${id}`)).body.code).toBe('svc.agent.not_found');
    }
    expect((await theirs.api.get(`/v1/agents/${foreign}`)).body.name).toBe('Ada');
  });

  it('uses landings:read and landings:write', async () => {
    const reader = await workspace(emulator, { scopes: ['landings:read'] });
    expect((await reader.api.get('/v1/agents')).status).toBe(200);
    expect((await reader.api.post('/v1/agents', agent())).body.code).toBe('svc.api_key.scope_missing');
    const writer = await workspace(emulator, { scopes: ['landings:write'] });
    expect((await writer.api.post('/v1/agents', agent())).status).toBe(201);
    expect((await writer.api.get('/v1/agents')).body.code).toBe('svc.api_key.scope_missing');
  });
});

describe('deleting an agent', () => {
  it('takes its own sources with it and leaves the pool alone', async () => {
    const { api, control } = await workspace(emulator);
    const { id } = (await api.post('/v1/agents', agent())).body;
    const [own1, own2, pooled] = await ingest(api, control, [
      { title: 'One', text: 'First own document.', agentId: id },
      { title: 'Two', text: 'Second own document.', agentId: id },
      { title: 'Pool', text: 'A document for every agent.' },
    ]);
    const res = await api.delete(`/v1/agents/${id}`);
    expect(res.status).toBe(200);
    expectMatchesOpenApi(doc, 'DELETE', '/v1/agents/{agentId}', 200, res.body);
    expect(res.body).toEqual({ agentId: id, sourcesDeleted: 2 });
    expect((await api.get(`/v1/knowledge/sources/${own1}`)).status).toBe(404);
    expect((await api.get(`/v1/knowledge/sources/${own2}`)).status).toBe(404);
    expect((await api.get(`/v1/knowledge/sources/${pooled}`)).status).toBe(200);
    expect((await api.get(`/v1/agents/${id}`)).status).toBe(404);
  });

  it('is 409 svc.agent.in_use naming every page that answers with it, and deletes nothing', async () => {
    const { api, control } = await workspace(emulator);
    const { id } = (await api.post('/v1/agents', agent())).body;
    const [source] = await ingest(api, control, [{ title: 'Own', text: 'Own document.', agentId: id }]);
    const project = (await api.post('/v1/projects', { name: 'Shop site' })).body.id;
    const home = await api.post(`/v1/projects/${project}/pages`, { name: 'Home', kind: 'agent', path: '/', agentId: id });
    const help = await api.post(`/v1/projects/${project}/pages`, { name: 'Help', kind: 'agent', path: '/help', agentId: id });
    expect([home.status, help.status]).toEqual([201, 201]);
    const res = await api.delete(`/v1/agents/${id}`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('svc.agent.in_use');
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([`pages.${home.body.id}`, `pages.${help.body.id}`].sort());
    expect((await api.get(`/v1/agents/${id}`)).status).toBe(200);
    expect((await api.get(`/v1/knowledge/sources/${source}`)).status).toBe(200);
    // Once no page answers with it, it goes.
    await api.delete(`/v1/pages/${help.body.id}`);
    await api.delete(`/v1/pages/${home.body.id}`);
    expect((await api.delete(`/v1/agents/${id}`)).body).toEqual({ agentId: id, sourcesDeleted: 1 });
  });
});

describe('the retired per-agent theme', () => {
  it('GET and PATCH /v1/agents/{id}/theme answer 410 svc.theme.retired, with the right scope checked first', async () => {
    const { api } = await workspace(emulator);
    const { id } = (await api.post('/v1/agents', agent())).body;
    const got = await api.get(`/v1/agents/${id}/theme`);
    expect(got.status).toBe(410);
    expect(got.headers.get('content-type')).toBe('application/problem+json');
    expect(got.body.code).toBe('svc.theme.retired');
    expect((await api.patch(`/v1/agents/${id}/theme`, { tokens: null })).body.code).toBe('svc.theme.retired');
    const reader = await workspace(emulator, { scopes: ['landings:read'] });
    expect((await reader.api.patch(`/v1/agents/${id}/theme`, {})).body.code).toBe('svc.api_key.scope_missing');
  });
});
