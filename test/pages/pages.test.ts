import { describe, expect, it } from 'vitest';
import { walk } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';
import { site } from './support.js';

const emulator = await fileEmulator();
const doc = emulator.openapi.document() as Parameters<typeof expectMatchesOpenApi>[0];

const empty = { es: '', en: '' };

describe('creating pages', () => {
  it('a document page: a draft with its body, empty editorial, the site language and sitemap defaults', async () => {
    const s = await site(emulator);
    const res = await s.api.post(s.pagesPath, { name: 'About', kind: 'document', path: '/About', body: { en: '# About us' } });
    expect(res.status).toBe(201);
    expectMatchesOpenApi(doc, 'POST', '/v1/projects/{projectId}/pages', 201, res.body);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^pg_[0-9a-z]{26}$/),
      name: 'About',
      kind: 'document',
      path: '/about',
      status: 'draft',
      defaultLocale: 'en',
      editorial: { badge: empty, title: empty, titleAccent: empty, description: empty },
      seo: { title: empty, description: empty },
      sitemap: { priority: 0.5, changefreq: 'weekly', sitemapExclude: false },
      body: { es: '', en: '# About us' },
      projectId: s.projectId,
      createdAt: expect.any(String),
      updatedAt: res.body.createdAt,
      publishedAt: null,
    });
    expect(res.body).not.toHaveProperty('agentId');
    const got = await s.api.get(`/v1/pages/${res.body.id}`);
    expectMatchesOpenApi(doc, 'GET', '/v1/pages/{pageId}', 200, got.body);
    expect(got.body).toEqual(res.body);
  });

  it('an agent page names its agent and takes editorial, SEO and sitemap', async () => {
    const s = await site(emulator, { locales: ['en', 'es'] });
    const res = await s.api.post(s.pagesPath, {
      name: 'Home',
      kind: 'agent',
      path: '/',
      agentId: s.agentId,
      defaultLocale: 'es',
      editorial: { badge: { es: 'Nuevo' }, title: { es: 'Hola', en: 'Hello' } },
      seo: { description: { es: 'Inicio' } },
      sitemap: { priority: 1, changefreq: 'daily' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      kind: 'agent',
      path: '/',
      agentId: s.agentId,
      defaultLocale: 'es',
      body: empty,
      editorial: { badge: { es: 'Nuevo', en: '' }, title: { es: 'Hola', en: 'Hello' }, titleAccent: empty, description: empty },
      seo: { title: empty, description: { es: 'Inicio', en: '' } },
      sitemap: { priority: 1, changefreq: 'daily', sitemapExclude: false },
    });
  });

  it('refuses fields of the other kind, a missing, unknown or foreign agent, and an unserved language; creates nothing', async () => {
    const s = await site(emulator);
    const other = await workspace(emulator);
    const foreign = (await other.api.post('/v1/agents', { name: 'X', identity: { businessName: 'X' } })).body.id;
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: 'agent' }, 'agentId'],
      [{ kind: 'agent', agentId: 'agt_missing' }, 'agentId'],
      [{ kind: 'agent', agentId: foreign }, 'agentId'],
      [{ kind: 'agent', agentId: s.agentId, body: { en: 'x' } }, 'body'],
      [{ kind: 'document', editorial: { title: { en: 'x' } } }, 'editorial'],
      [{ kind: 'document', agentId: s.agentId }, 'agentId'],
      [{ kind: 'document', defaultLocale: 'es' }, 'defaultLocale'],
      [{ kind: 'document', defaultLocale: 'fr' }, 'defaultLocale'],
      [{ kind: 'form' }, 'kind'],
      [{ kind: 'document', status: 'published' }, 'status'],
      [{ kind: 'document', seo: { title: { en: 't'.repeat(201) } } }, 'seo.title.en'],
      [{ kind: 'document', seo: { title: { de: 'x' } } }, 'seo.title.de'],
      [{ kind: 'document', seo: [] }, 'seo'],
      [{ kind: 'document', body: { en: [] } }, 'body.en'],
      [{ kind: 'document', sitemap: { priority: 1.5 } }, 'sitemap.priority'],
      [{ kind: 'document', sitemap: { changefreq: 'often' } }, 'sitemap.changefreq'],
      [{ kind: 'document', name: 'n'.repeat(81) }, 'name'],
      [{ kind: 'document', name: '' }, 'name'],
    ];
    for (const [extra, field] of cases) {
      const res = await s.api.post(s.pagesPath, { name: 'P', path: '/p', ...extra });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.body.code).toBe('svc.page.invalid');
      expect(res.body.errors[0].field).toBe(field);
    }
    expect(await walk(s.api, s.pagesPath)).toEqual([]);
    expect((await s.api.post(s.pagesPath, { name: 'n'.repeat(80), kind: 'document', path: '/p', seo: { title: { en: 't'.repeat(200) } } })).status).toBe(201);
  });

  it('an unknown or foreign project is 404 svc.project.not_found', async () => {
    const s = await site(emulator);
    const other = await workspace(emulator);
    for (const res of [
      await other.api.post(s.pagesPath, { name: 'P', kind: 'document', path: '/p' }),
      await other.api.get(s.pagesPath),
      await s.api.post('/v1/projects/prj_missing/pages', { name: 'P', kind: 'document', path: '/p' }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('svc.project.not_found');
    }
  });
});

describe('path rules', () => {
  it('accepts /, up to 4 segments, up to 200 characters, and folds case', async () => {
    const s = await site(emulator);
    const seg = (c: string) => c.repeat(49);
    const longest = `/${seg('a')}/${seg('b')}/${seg('c')}/${seg('d')}`;
    expect(longest).toHaveLength(200);
    for (const [path, stored] of [
      ['/', '/'],
      ['/a', '/a'],
      ['/A/B-c/d9/E-F-G', '/a/b-c/d9/e-f-g'],
      [longest, longest],
      ['/administrator', '/administrator'],
      ['/blog/admin', '/blog/admin'],
    ]) {
      const res = await s.api.post(s.pagesPath, { name: 'P', kind: 'document', path });
      expect(res.status, path).toBe(201);
      expect(res.body.path).toBe(stored);
    }
  });

  it('refuses 5 segments, 201 characters, percent-encoding, dot segments and bad segments with 400; creates nothing', async () => {
    const s = await site(emulator);
    const tooLong = `/${'a'.repeat(49)}/${'b'.repeat(49)}/${'c'.repeat(49)}/${'d'.repeat(50)}`;
    expect(tooLong).toHaveLength(201);
    const bad = [
      '/a/b/c/d/e',
      tooLong,
      '/a%20b',
      '/%61',
      '/./a',
      '/a/..',
      '/a/.',
      '/..',
      '/a//b',
      '/a/',
      'a',
      '',
      '//',
      '/a_b',
      '/-a',
      '/a-',
      '/a--b',
      '/café',
      '/a b',
      '/a?b',
      '/a#b',
      '/a.html',
      '/\u212a',
    ];
    for (const path of bad) {
      const res = await s.api.post(s.pagesPath, { name: 'P', kind: 'document', path });
      expect(res.status, path).toBe(400);
      expect(res.body.code).toBe('svc.page.invalid');
      expect(res.body.errors[0].field).toBe('path');
    }
    expect(await walk(s.api, s.pagesPath)).toEqual([]);
  });

  it('the reserved subtrees are 409 svc.page.path_reserved, in any case', async () => {
    const s = await site(emulator);
    const reserved = ['admin', 'api', 'app', 'cdn', 'console', 'docs', 'embed', 'mail', 'status', 'storage', 'well-known', 'widget', 'www'];
    for (const first of reserved) {
      for (const path of [`/${first}`, `/${first.toUpperCase()}/deeper/still`]) {
        const res = await s.api.post(s.pagesPath, { name: 'P', kind: 'document', path });
        expect(res.status, path).toBe(409);
        expect(res.body.code).toBe('svc.page.path_reserved');
        expect(res.body.errors[0].field).toBe('path');
      }
    }
    expect(await walk(s.api, s.pagesPath)).toEqual([]);
  });

  it('a path is taken per site, whatever its case; one / per site; another site may reuse it', async () => {
    const s = await site(emulator);
    await s.doc('/');
    await s.doc('/about');
    for (const path of ['/', '/about', '/ABOUT']) {
      const res = await s.api.post(s.pagesPath, { name: 'P', kind: 'document', path });
      expect(res.status, path).toBe(409);
      expect(res.body.code).toBe('svc.page.path_taken');
    }
    expect(await walk(s.api, s.pagesPath)).toHaveLength(2);
    const second = (await s.api.post('/v1/projects', { name: 'Second', slug: `second-${s.projectId.slice(-10)}` })).body;
    expect((await s.api.post(`/v1/projects/${second.id}/pages`, { name: 'P', kind: 'document', path: '/about' })).status).toBe(201);
  });

  it('two requests racing for one path: exactly one page is created', async () => {
    const s = await site(emulator);
    const results = await Promise.all(Array.from({ length: 6 }, () => s.api.post(s.pagesPath, { name: 'P', kind: 'document', path: '/race' })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expect(r.body.code).toBe('svc.page.path_taken');
    expect(await walk(s.api, s.pagesPath)).toHaveLength(1);
  });

  it('PATCH moves a page; a taken, reserved or malformed target is refused and changes nothing', async () => {
    const s = await site(emulator);
    await s.doc('/taken');
    const page = await s.doc('/here');
    const moved = await s.api.patch(`/v1/pages/${page.id}`, { path: '/There/Now' });
    expect(moved.status).toBe(200);
    expect(moved.body.path).toBe('/there/now');
    const cases: [string, number, string][] = [
      ['/taken', 409, 'svc.page.path_taken'],
      ['/TAKEN', 409, 'svc.page.path_taken'],
      ['/api/x', 409, 'svc.page.path_reserved'],
      ['/a/b/c/d/e', 400, 'svc.page.invalid'],
      ['/x%2Fy', 400, 'svc.page.invalid'],
    ];
    for (const [path, status, code] of cases) {
      const res = await s.api.patch(`/v1/pages/${page.id}`, { path });
      expect(res.status, path).toBe(status);
      expect(res.body.code).toBe(code);
    }
    expect((await s.api.get(`/v1/pages/${page.id}`)).body).toEqual(moved.body);
    expect((await s.api.patch(`/v1/pages/${page.id}`, { path: '/there/now' })).status).toBe(200);
  });
});
