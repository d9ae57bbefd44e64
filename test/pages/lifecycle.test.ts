import { describe, expect, it } from 'vitest';
import { client, walk } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';
import { site } from './support.js';

const emulator = await fileEmulator();
const doc = emulator.openapi.document() as Parameters<typeof expectMatchesOpenApi>[0];
const control = client(emulator);

const empty = { es: '', en: '' };

describe('publishing and the root rule', () => {
  it('publish sets status and publishedAt; publishing again changes nothing; unpublish clears them', async () => {
    const s = await site(emulator);
    const page = await s.doc('/');
    await emulator.clock.advance(1000);
    const published = await s.api.post(`/v1/pages/${page.id}/publish`);
    expect(published.status).toBe(200);
    expectMatchesOpenApi(doc, 'POST', '/v1/pages/{pageId}/publish', 200, published.body);
    expect(published.body.status).toBe('published');
    expect(Date.parse(published.body.publishedAt)).toBeGreaterThan(Date.parse(page.createdAt));
    await emulator.clock.advance(1000);
    expect((await s.api.post(`/v1/pages/${page.id}/publish`)).body).toEqual(published.body);
    const drafted = await s.api.post(`/v1/pages/${page.id}/unpublish`);
    expect(drafted.status).toBe(200);
    expect(drafted.body).toMatchObject({ status: 'draft', publishedAt: null });
    expect((await s.api.post(`/v1/pages/${page.id}/unpublish`)).body).toEqual(drafted.body);
  });

  it('while another page is live, / cannot be unpublished, moved or deleted; once none is, it can', async () => {
    const s = await site(emulator);
    const root = await s.doc('/');
    const about = await s.doc('/about');
    const draft = await s.doc('/draft');
    await s.api.post(`/v1/pages/${root.id}/publish`);
    // Draft pages do not hold the root.
    expect((await s.api.post(`/v1/pages/${root.id}/unpublish`)).status).toBe(200);
    await s.api.post(`/v1/pages/${root.id}/publish`);
    await s.api.post(`/v1/pages/${about.id}/publish`);
    const live = (await s.api.get(`/v1/pages/${root.id}`)).body;
    for (const res of [
      await s.api.post(`/v1/pages/${root.id}/unpublish`),
      await s.api.patch(`/v1/pages/${root.id}`, { path: '/home' }),
      await s.api.delete(`/v1/pages/${root.id}`),
    ]) {
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('svc.page.root_required');
    }
    expect((await s.api.get(`/v1/pages/${root.id}`)).body).toEqual(live);
    // Other pages come and go freely; editing / without moving it is fine.
    expect((await s.api.patch(`/v1/pages/${root.id}`, { name: 'Home', path: '/' })).status).toBe(200);
    expect((await s.api.delete(`/v1/pages/${draft.id}`)).status).toBe(200);
    expect((await s.api.post(`/v1/pages/${about.id}/unpublish`)).status).toBe(200);
    expect((await s.api.patch(`/v1/pages/${root.id}`, { path: '/home' })).body.path).toBe('/home');
    expect((await s.api.patch(`/v1/pages/${root.id}`, { path: '/' })).body.path).toBe('/');
    expect((await s.api.post(`/v1/pages/${root.id}/unpublish`)).status).toBe(200);
    expect((await s.api.delete(`/v1/pages/${root.id}`)).body).toEqual({ pageId: root.id, deleted: true });
  });

  it('a live page of another site does not hold this root', async () => {
    const s = await site(emulator);
    const root = await s.doc('/');
    await s.api.post(`/v1/pages/${root.id}/publish`);
    const other = (await s.api.post('/v1/projects', { name: 'Other', slug: `other-${s.projectId.slice(-10)}` })).body;
    const elsewhere = (await s.api.post(`/v1/projects/${other.id}/pages`, { name: 'X', kind: 'document', path: '/x' })).body;
    await s.api.post(`/v1/pages/${elsewhere.id}/publish`);
    expect((await s.api.post(`/v1/pages/${root.id}/unpublish`)).status).toBe(200);
  });
});

describe('editing texts', () => {
  it('body: an absent language is kept, an empty string removes it, the source language cannot be emptied', async () => {
    const s = await site(emulator, { locales: ['en', 'es'] });
    const page = await s.doc('/doc', { body: { en: 'Hello', es: 'Hola' } });
    expect((await s.api.patch(`/v1/pages/${page.id}`, { body: { en: 'Hello again' } })).body.body).toEqual({ en: 'Hello again', es: 'Hola' });
    expect((await s.api.patch(`/v1/pages/${page.id}`, { body: { es: '' } })).body.body).toEqual({ en: 'Hello again', es: '' });
    const refused = await s.api.patch(`/v1/pages/${page.id}`, { body: { en: '' }, name: 'Renamed' });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('svc.page.invalid');
    expect(refused.body.errors).toEqual([{ field: 'body.en', reason: 'the source language cannot be emptied' }]);
    expect((await s.api.get(`/v1/pages/${page.id}`)).body).toMatchObject({ name: page.name, body: { en: 'Hello again', es: '' } });
    // Once Spanish is the source, English may go and Spanish may not.
    const switched = await s.api.patch(`/v1/pages/${page.id}`, { defaultLocale: 'es', body: { es: 'Hola', en: '' } });
    expect(switched.body).toMatchObject({ defaultLocale: 'es', body: { es: 'Hola', en: '' } });
    expect((await s.api.patch(`/v1/pages/${page.id}`, { body: { es: '' } })).body.errors[0].field).toBe('body.es');
  });

  it('editorial and SEO merge per key and language; editorial only on agent pages, body only on document pages', async () => {
    const s = await site(emulator, { locales: ['en', 'es'] });
    const page = await s.agentPage('/', { editorial: { title: { en: 'Hello', es: 'Hola' }, badge: { en: 'New' } } });
    const res = await s.api.patch(`/v1/pages/${page.id}`, {
      editorial: { title: { es: 'Buenas' }, description: { en: 'Ask me' } },
      seo: { title: { en: 'Acme' } },
    });
    expect(res.status).toBe(200);
    expectMatchesOpenApi(doc, 'PATCH', '/v1/pages/{pageId}', 200, res.body);
    expect(res.body.editorial).toEqual({
      badge: { en: 'New', es: '' },
      title: { en: 'Hello', es: 'Buenas' },
      titleAccent: empty,
      description: { en: 'Ask me', es: '' },
    });
    expect(res.body.seo).toEqual({ title: { en: 'Acme', es: '' }, description: empty });
    expect((await s.api.patch(`/v1/pages/${page.id}`, { editorial: { badge: { en: '' } } })).body.editorial.badge).toEqual(empty);
    const bodyOnAgent = await s.api.patch(`/v1/pages/${page.id}`, { body: { en: 'x' } });
    expect([bodyOnAgent.status, bodyOnAgent.body.errors[0].field]).toEqual([400, 'body']);
    const d = await s.doc('/d', { body: { en: 'x' } });
    for (const [body, field] of [
      [{ editorial: { title: { en: 'x' } } }, 'editorial'],
      [{ agentId: s.agentId }, 'agentId'],
      [{ kind: 'agent' }, 'kind'],
    ] as const) {
      const r = await s.api.patch(`/v1/pages/${d.id}`, body);
      expect([r.status, r.body.code, r.body.errors[0].field]).toEqual([400, 'svc.page.invalid', field]);
    }
    const seo = await s.api.patch(`/v1/pages/${d.id}`, { seo: { description: { en: 'About' } }, sitemap: { sitemapExclude: true, priority: 0 } });
    expect(seo.body).toMatchObject({ seo: { description: { en: 'About', es: '' } }, sitemap: { priority: 0, changefreq: 'weekly', sitemapExclude: true } });
  });

  it('defaultLocale must be one the site serves', async () => {
    const s = await site(emulator);
    const page = await s.doc('/p', { body: { en: 'x' } });
    const res = await s.api.patch(`/v1/pages/${page.id}`, { defaultLocale: 'es' });
    expect([res.status, res.body.code, res.body.errors[0].field]).toEqual([400, 'svc.page.invalid', 'defaultLocale']);
    await s.api.patch(`/v1/projects/${s.projectId}`, { locales: ['en', 'es'] });
    expect((await s.api.patch(`/v1/pages/${page.id}`, { defaultLocale: 'es' })).body.defaultLocale).toBe('es');
  });
});

describe('pages and agents', () => {
  it('agentId re-points within the workspace only', async () => {
    const s = await site(emulator);
    const page = await s.agentPage('/');
    const second = (await s.api.post('/v1/agents', { name: 'Bea', identity: { businessName: 'Acme' } })).body.id;
    const other = await workspace(emulator);
    const foreign = (await other.api.post('/v1/agents', { name: 'X', identity: { businessName: 'X' } })).body.id;
    for (const agentId of [foreign, 'agt_missing', '']) {
      const res = await s.api.patch(`/v1/pages/${page.id}`, { agentId });
      expect([res.status, res.body.code, res.body.errors[0].field]).toEqual([400, 'svc.page.invalid', 'agentId']);
    }
    expect((await s.api.patch(`/v1/pages/${page.id}`, { agentId: second })).body.agentId).toBe(second);
    // The first agent answers nowhere now; the second is held by the page.
    expect((await s.api.delete(`/v1/agents/${s.agentId}`)).status).toBe(200);
    expect((await s.api.delete(`/v1/agents/${second}`)).status).toBe(409);
  });

  it('deleting an agent a page answers with is 409 svc.agent.in_use naming each page', async () => {
    const s = await site(emulator);
    const a = await s.agentPage('/');
    const b = await s.agentPage('/b');
    await s.api.post(`/v1/pages/${a.id}/publish`);
    const res = await s.api.delete(`/v1/agents/${s.agentId}`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('svc.agent.in_use');
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([`pages.${a.id}`, `pages.${b.id}`].sort());
    expect((await s.api.get(`/v1/agents/${s.agentId}`)).status).toBe(200);
    await s.api.delete(`/v1/pages/${b.id}`);
    await s.api.post(`/v1/pages/${a.id}/unpublish`);
    await s.api.delete(`/v1/pages/${a.id}`);
    expect((await s.api.delete(`/v1/agents/${s.agentId}`)).status).toBe(200);
  });
});

describe('listing, deleting, scopes and the cap', () => {
  it('lists newest first, filters by status, and deletes', async () => {
    const s = await site(emulator);
    const a = await s.doc('/');
    const b = await s.doc('/b');
    const c = await s.doc('/c');
    await s.api.post(`/v1/pages/${b.id}/publish`);
    const list = await s.api.get(`${s.pagesPath}?limit=2`);
    expectMatchesOpenApi(doc, 'GET', '/v1/projects/{projectId}/pages', 200, list.body);
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([c.id, b.id]);
    expect((await walk(s.api, s.pagesPath, 1)).map((p) => p.id)).toEqual([c.id, b.id, a.id]);
    expect((await walk(s.api, `${s.pagesPath}?status=published`)).map((p) => p.id)).toEqual([b.id]);
    expect((await s.api.get(`${s.pagesPath}?status=live`)).body.code).toBe('svc.request.validation_failed');
    const deleted = await s.api.delete(`/v1/pages/${c.id}`);
    expectMatchesOpenApi(doc, 'DELETE', '/v1/pages/{pageId}', 200, deleted.body);
    expect(deleted.body).toEqual({ pageId: c.id, deleted: true });
    expect((await s.api.get(`/v1/pages/${c.id}`)).body.code).toBe('svc.page.not_found');
    expect((await s.api.delete(`/v1/pages/${c.id}`)).body.code).toBe('svc.page.not_found');
  });

  it("another workspace's page is 404 svc.page.not_found for every route", async () => {
    const s = await site(emulator);
    const page = await s.doc('/');
    const other = await workspace(emulator);
    for (const res of [
      await other.api.get(`/v1/pages/${page.id}`),
      await other.api.patch(`/v1/pages/${page.id}`, { name: 'X' }),
      await other.api.post(`/v1/pages/${page.id}/publish`),
      await other.api.post(`/v1/pages/${page.id}/unpublish`),
      await other.api.delete(`/v1/pages/${page.id}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('svc.page.not_found');
    }
    expect((await s.api.get(`/v1/pages/${page.id}`)).body).toEqual(page);
  });

  it('pages need landings scopes: read to read, write to write; projects scopes are not enough', async () => {
    const s = await site(emulator);
    const page = await s.doc('/');
    const key = async (scopes: string[]) => {
      const created = await control.post(`/workspaces/${s.workspaceId}/keys`, { name: 'k', scopes });
      return client(emulator, created.body.secret);
    };
    await control.delete(`/workspaces/${s.workspaceId}/keys/${s.apiKey.id}`);
    const reader = await key(['landings:read', 'projects:read', 'projects:write']);
    expect((await reader.get(`/v1/pages/${page.id}`)).status).toBe(200);
    expect((await reader.get(s.pagesPath)).status).toBe(200);
    for (const res of [
      await reader.post(s.pagesPath, { name: 'P', kind: 'document', path: '/p' }),
      await reader.patch(`/v1/pages/${page.id}`, { name: 'X' }),
      await reader.post(`/v1/pages/${page.id}/publish`),
      await reader.post(`/v1/pages/${page.id}/unpublish`),
      await reader.delete(`/v1/pages/${page.id}`),
    ])
      expect(res.body.code).toBe('svc.api_key.scope_missing');
    await control.delete(
      `/workspaces/${s.workspaceId}/keys/${(await control.get(`/workspaces/${s.workspaceId}/keys`)).body.data.find((k: { revokedAt: string | null }) => !k.revokedAt).id}`,
    );
    const writer = await key(['landings:write']);
    expect((await writer.get(`/v1/pages/${page.id}`)).status).toBe(403);
    expect((await writer.post(`/v1/pages/${page.id}/publish`)).status).toBe(200);
  });

  it('the pages cap counts every site of the workspace: up to it, then 402 naming pages', async () => {
    const s = await site(emulator);
    await control.patch(`/_emulator/workspaces/${s.workspaceId}`, { caps: { pages: 2 } });
    await s.doc('/');
    const second = (await s.api.post('/v1/projects', { name: 'Second', slug: `cap-${s.projectId.slice(-10)}` })).body;
    expect((await s.api.post(`/v1/projects/${second.id}/pages`, { name: 'P', kind: 'document', path: '/' })).status).toBe(201);
    const refused = await s.api.post(s.pagesPath, { name: 'P', kind: 'document', path: '/third' });
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('svc.billing.limit_reached');
    expect(refused.body.errors[0].field).toBe('pages');
    expect(await walk(s.api, s.pagesPath)).toHaveLength(1);
    await control.patch(`/_emulator/workspaces/${s.workspaceId}`, { caps: { pages: 3 } });
    expect((await s.api.post(s.pagesPath, { name: 'P', kind: 'document', path: '/third' })).status).toBe(201);
  });

  it('publish and unpublish honour Idempotency-Key', async () => {
    const s = await site(emulator);
    const page = await s.doc('/');
    const first = await s.api.post(`/v1/pages/${page.id}/publish`, undefined, { 'idempotency-key': 'pub-1' });
    const again = await s.api.post(`/v1/pages/${page.id}/publish`, undefined, { 'idempotency-key': 'pub-1' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });
});
