import { describe, expect, it } from 'vitest';
import { client, walk } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';

const emulator = await fileEmulator();
const doc = emulator.openapi.document() as Parameters<typeof expectMatchesOpenApi>[0];
const control = client(emulator);

type Api = Awaited<ReturnType<typeof workspace>>['api'];
const projects = async (api: Api) => walk(api, '/v1/projects');

let n = 0;
const unique = (base = 'site') => `${base}-${++n}-${process.pid}`;

describe('PUT /v1/projects/{id}/address', () => {
  it('moves the site; the old slug is retired: refused to others, free for its workspace', async () => {
    const a = await workspace(emulator);
    const b = await workspace(emulator);
    const old = unique('old');
    const fresh = unique('new');
    const p = (await a.api.post('/v1/projects', { name: 'Site', slug: old })).body;
    const moved = await a.api.put(`/v1/projects/${p.id}/address`, { slug: fresh.toUpperCase() });
    expect(moved.status).toBe(200);
    expectMatchesOpenApi(doc, 'PUT', '/v1/projects/{projectId}/address', 200, moved.body);
    expect(moved.body).toMatchObject({ id: p.id, slug: fresh });
    for (const res of [
      await b.api.post('/v1/projects', { name: 'Thief', slug: old }),
      await b.api.put(`/v1/projects/${(await b.api.post('/v1/projects', { name: 'B', slug: unique() })).body.id}/address`, { slug: old }),
    ]) {
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('svc.project.slug_taken');
    }
    // The owner may take it again, with another project or by moving back.
    const second = await a.api.post('/v1/projects', { name: 'Second', slug: old });
    expect(second.status).toBe(201);
    expect((await a.api.put(`/v1/projects/${second.body.id}/address`, { slug: unique() })).status).toBe(200);
    expect((await a.api.put(`/v1/projects/${p.id}/address`, { slug: old })).body.slug).toBe(old);
    expect((await b.api.post('/v1/projects', { name: 'Thief', slug: fresh })).body.code).toBe('svc.project.slug_taken');
  });

  it('the same slug changes nothing; reserved, taken and malformed slugs are refused and change nothing', async () => {
    const a = await workspace(emulator);
    const b = await workspace(emulator);
    const held = unique('held');
    await b.api.post('/v1/projects', { name: 'B', slug: held });
    const p = (await a.api.post('/v1/projects', { name: 'Site', slug: unique() })).body;
    const same = await a.api.put(`/v1/projects/${p.id}/address`, { slug: p.slug });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(p);
    const cases: [unknown, number, string][] = [
      [{ slug: 'www' }, 409, 'svc.project.slug_reserved'],
      [{ slug: held }, 409, 'svc.project.slug_taken'],
      [{ slug: 'a--b' }, 400, 'svc.project.invalid'],
      [{ slug: 'x'.repeat(41) }, 400, 'svc.project.invalid'],
      [{}, 400, 'svc.project.invalid'],
      [{ slug: unique(), name: 'x' }, 400, 'svc.project.invalid'],
    ];
    for (const [body, status, code] of cases) {
      const res = await a.api.put(`/v1/projects/${p.id}/address`, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.code).toBe(code);
    }
    expect((await a.api.get(`/v1/projects/${p.id}`)).body).toEqual(p);
    expect((await a.api.put('/v1/projects/prj_missing/address', { slug: unique() })).body.code).toBe('svc.project.not_found');
  });
});

describe('DELETE /v1/projects/{id}', () => {
  it('deletes the pages and theme, frees every slug it held; agents survive', async () => {
    const a = await workspace(emulator);
    const b = await workspace(emulator);
    const first = unique('gone');
    const second = unique('gone');
    const p = (await a.api.post('/v1/projects', { name: 'Site', slug: first })).body;
    await a.api.put(`/v1/projects/${p.id}/address`, { slug: second });
    const agent = (await a.api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body;
    const home = (await a.api.post(`/v1/projects/${p.id}/pages`, { name: 'Home', kind: 'agent', path: '/', agentId: agent.id })).body;
    const about = (await a.api.post(`/v1/projects/${p.id}/pages`, { name: 'About', kind: 'document', path: '/about', body: { en: '# About' } })).body;
    await a.api.patch(`/v1/projects/${p.id}/theme`, { tokens: { radius: 'xl' } });
    const keep = (await a.api.post('/v1/projects', { name: 'Keep', slug: unique() })).body;
    const keptPage = (await a.api.post(`/v1/projects/${keep.id}/pages`, { name: 'K', kind: 'document', path: '/' })).body;

    const res = await a.api.delete(`/v1/projects/${p.id}`);
    expect(res.status).toBe(200);
    expectMatchesOpenApi(doc, 'DELETE', '/v1/projects/{projectId}', 200, res.body);
    expect(res.body).toEqual({ projectId: p.id, pagesDeleted: 2 });
    expect((await a.api.get(`/v1/projects/${p.id}`)).status).toBe(404);
    expect((await a.api.get(`/v1/projects/${p.id}/theme`)).body.code).toBe('svc.project.not_found');
    for (const page of [home, about]) expect((await a.api.get(`/v1/pages/${page.id}`)).body.code).toBe('svc.page.not_found');
    expect((await a.api.get(`/v1/pages/${keptPage.id}`)).status).toBe(200);
    expect((await a.api.get(`/v1/agents/${agent.id}`)).status).toBe(200);
    // Both the address in force and the retired one are free for anyone.
    expect((await b.api.post('/v1/projects', { name: 'B', slug: first })).status).toBe(201);
    expect((await b.api.post('/v1/projects', { name: 'B', slug: second })).status).toBe(201);
    // The agent no longer answers on any page, so it can go.
    expect((await a.api.delete(`/v1/agents/${agent.id}`)).status).toBe(200);
    expect((await a.api.delete(`/v1/projects/${p.id}`)).body.code).toBe('svc.project.not_found');
  });

  it('deleting a workspace frees its slugs', async () => {
    const a = await workspace(emulator);
    const b = await workspace(emulator);
    const slug = unique('dropped');
    await a.api.post('/v1/projects', { name: 'A', slug });
    expect((await b.api.post('/v1/projects', { name: 'B', slug })).status).toBe(409);
    expect((await control.delete(`/_emulator/workspaces/${a.workspaceId}`)).status).toBeLessThan(300);
    expect((await b.api.post('/v1/projects', { name: 'B', slug })).status).toBe(201);
  });
});

describe('plan cap on projects', () => {
  it('allows up to the cap, then 402 naming projects; the refused slug stays free', async () => {
    const a = await workspace(emulator);
    await control.patch(`/_emulator/workspaces/${a.workspaceId}`, { caps: { projects: 2 } });
    for (let i = 0; i < 2; i++) expect((await a.api.post('/v1/projects', { name: `P${i}`, slug: unique() })).status).toBe(201);
    const slug = unique('capped');
    const refused = await a.api.post('/v1/projects', { name: 'P3', slug });
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('svc.billing.limit_reached');
    expect(refused.body.errors[0].field).toBe('projects');
    const list = await projects(a.api);
    expect(list).toHaveLength(2);
    const b = await workspace(emulator);
    expect((await b.api.post('/v1/projects', { name: 'B', slug })).status).toBe(201);
    await a.api.delete(`/v1/projects/${list[0].id}`);
    expect((await a.api.post('/v1/projects', { name: 'P3', slug: unique() })).status).toBe(201);
  });
});
