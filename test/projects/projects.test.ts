import { describe, expect, it } from 'vitest';
import { walk } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';

const emulator = await fileEmulator();
const doc = emulator.openapi.document() as Parameters<typeof expectMatchesOpenApi>[0];

type Api = Awaited<ReturnType<typeof workspace>>['api'];
const projects = async (api: Api) => walk(api, '/v1/projects');

// Slugs are global: every test takes its own by suffixing a counter.
let n = 0;
const unique = (base = 'site') => `${base}-${++n}-${process.pid}`;

describe('POST /v1/projects', () => {
  it('derives the slug from the name and fills every default', async () => {
    const { api } = await workspace(emulator);
    const name = `Café Niño & Co. ${unique('x')}`;
    const res = await api.post('/v1/projects', { name });
    expect(res.status).toBe(201);
    expectMatchesOpenApi(doc, 'POST', '/v1/projects', 201, res.body);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^prj_[0-9a-z]{26}$/),
      name,
      slug: `cafe-nino-co-${name.split(' ').pop()}`,
      locales: ['en'],
      defaultLocale: 'en',
      robots: { indexable: true, aiSearch: true, aiTraining: false, disallow: [], raw: '' },
      analytics: { clarityId: '', gtmId: '', metaPixelId: '', posthogKey: '' },
      sitemap: { extraUrls: [] },
    });
    expect(res.body.llmsTxt).toEqual({ text: expect.stringContaining(`# ${name}`), generatedAt: res.body.createdAt });
    const got = await api.get(`/v1/projects/${res.body.id}`);
    expect(got.status).toBe(200);
    expectMatchesOpenApi(doc, 'GET', '/v1/projects/{projectId}', 200, got.body);
    expect(got.body).toEqual(res.body);
  });

  it('cuts a derived slug to 40 at the last hyphen that fits, or hard when the first word is longer', async () => {
    const { api } = await workspace(emulator);
    const tag = `z${n++}${process.pid}`.slice(0, 9).padEnd(9, 'q');
    // 4 words of 10 = 43 characters with hyphens: cut after the third word.
    const words = await api.post('/v1/projects', { name: `${tag}a ${tag}b ${tag}c ${tag}d` });
    expect(words.status).toBe(201);
    expect(words.body.slug).toBe(`${tag}a-${tag}b-${tag}c`);
    const exact = `${tag}a-${tag}b-${tag}c-${tag.slice(0, 7)}`;
    expect(exact).toHaveLength(40);
    expect((await api.post('/v1/projects', { name: exact.toUpperCase() })).body.slug).toBe(exact);
    const long = await api.post('/v1/projects', { name: `${tag}${'l'.repeat(40)} tail` });
    expect(long.body.slug).toBe(`${tag}${'l'.repeat(31)}`);
  });

  it('refuses a name that gives no slug, and creates nothing', async () => {
    const { api } = await workspace(emulator);
    const res = await api.post('/v1/projects', { name: '¡¿!? — …' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('svc.project.invalid');
    expect(res.body.errors[0].field).toBe('slug');
    expect(await projects(api)).toEqual([]);
  });

  it('takes a slug of 40 characters, stores it lowercase, and refuses 41 and every bad shape', async () => {
    const { api } = await workspace(emulator);
    const base = unique('Forty').toUpperCase();
    const forty = base + 'x'.repeat(40 - base.length);
    const ok = await api.post('/v1/projects', { name: 'Forty', slug: forty });
    expect(ok.status).toBe(201);
    expect(ok.body.slug).toBe(forty.toLowerCase());
    for (const slug of [`${forty}y`, '', '-abc', 'abc-', 'ab--c', 'a_b', 'ñandu', 'a b', 'a.b', `${'K'.normalize()}\u212a`]) {
      const res = await api.post('/v1/projects', { name: 'Bad', slug });
      expect(res.status, slug).toBe(400);
      expect(res.body.code).toBe('svc.project.invalid');
      expect(res.body.errors[0].field).toBe('slug');
    }
    expect(await projects(api)).toHaveLength(1);
  });

  it('refuses the 12 reserved names, in any case and when derived, with 409 slug_reserved', async () => {
    const { api } = await workspace(emulator);
    const names = ['www', 'api', 'admin', 'app', 'console', 'cdn', 'widget', 'docs', 'mail', 'cname', 'status', 'blog'];
    for (const slug of names) {
      const res = await api.post('/v1/projects', { name: 'Mine', slug: slug.toUpperCase() });
      expect(res.status, slug).toBe(409);
      expect(res.body.code).toBe('svc.project.slug_reserved');
      expect(res.body.errors).toEqual([{ field: 'slug', reason: 'reserved' }]);
    }
    expect((await api.post('/v1/projects', { name: 'Blog' })).body.code).toBe('svc.project.slug_reserved');
    expect(await projects(api)).toEqual([]);
  });

  it('a taken slug is 409 with an available neighbour, never a silent suffix', async () => {
    const a = await workspace(emulator);
    const b = await workspace(emulator);
    const slug = unique('acme');
    expect((await a.api.post('/v1/projects', { name: 'Acme', slug })).status).toBe(201);
    const taken = await b.api.post('/v1/projects', { name: 'Acme', slug });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('svc.project.slug_taken');
    expect(taken.body.errors).toEqual([{ field: 'slug', reason: 'taken', suggestion: `${slug}-2` }]);
    expect(await projects(b.api)).toEqual([]);
    // The same workspace gets the same answer for its own slug.
    expect((await a.api.post('/v1/projects', { name: 'Again', slug })).body.code).toBe('svc.project.slug_taken');
    // A derived slug is refused the same way.
    expect((await b.api.post('/v1/projects', { name: slug.replaceAll('-', ' ') })).body.code).toBe('svc.project.slug_taken');
    // The suggestion really is free; once taken, the next one is offered.
    expect((await b.api.post('/v1/projects', { name: 'Acme 2', slug: `${slug}-2` })).status).toBe(201);
    expect((await b.api.post('/v1/projects', { name: 'Acme', slug })).body.errors[0].suggestion).toBe(`${slug}-3`);
  });

  it('suggests a neighbour that still fits in 40 characters', async () => {
    const { api } = await workspace(emulator);
    const base = unique('long');
    const slug = `${base}-${'w'.repeat(39 - base.length)}`;
    expect(slug).toHaveLength(40);
    expect((await api.post('/v1/projects', { name: 'L', slug })).status).toBe(201);
    const res = await api.post('/v1/projects', { name: 'L', slug });
    const suggestion: string = res.body.errors[0].suggestion;
    expect(suggestion.length).toBeLessThanOrEqual(40);
    expect(suggestion).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*-2$/);
    expect((await api.post('/v1/projects', { name: 'L', slug: suggestion })).status).toBe(201);
  });

  it('two workspaces racing for one slug: exactly one wins', async () => {
    const racers = await Promise.all(Array.from({ length: 8 }, () => workspace(emulator)));
    const slug = unique('race');
    const results = await Promise.all(racers.map((r) => r.api.post('/v1/projects', { name: 'Race', slug })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const losers = results.filter((r) => r.status !== 201);
    expect(losers).toHaveLength(7);
    for (const r of losers) expect(r.body.code).toBe('svc.project.slug_taken');
    const owners = await Promise.all(racers.map(async (r) => (await projects(r.api)).length));
    expect(owners.reduce((a, b) => a + b, 0)).toBe(1);
  });

  it('locales: 1 or 2 items without repeats; defaultLocale defaults to the first and must be served', async () => {
    const { api } = await workspace(emulator);
    const two = await api.post('/v1/projects', { name: 'Two', slug: unique(), locales: ['es', 'en'] });
    expect(two.status).toBe(201);
    expect(two.body).toMatchObject({ locales: ['es', 'en'], defaultLocale: 'es' });
    const chosen = await api.post('/v1/projects', { name: 'Two', slug: unique(), locales: ['es', 'en'], defaultLocale: 'en' });
    expect(chosen.body.defaultLocale).toBe('en');
    const bad: [unknown, string][] = [
      [{ locales: [] }, 'locales'],
      [{ locales: ['es', 'es'] }, 'locales'],
      [{ locales: ['es', 'en', 'es'] }, 'locales'],
      [{ locales: ['fr'] }, 'locales.0'],
      [{ locales: ['en'], defaultLocale: 'es' }, 'defaultLocale'],
      [{ defaultLocale: 'es' }, 'defaultLocale'],
    ];
    for (const [extra, field] of bad) {
      const res = await api.post('/v1/projects', { name: 'Bad', slug: unique(), ...(extra as object) });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.body.code).toBe('svc.project.invalid');
      expect(res.body.errors[0].field).toBe(field);
    }
    expect(await projects(api)).toHaveLength(2);
  });

  it('name is 1 to 80 characters; unknown fields are refused', async () => {
    const { api } = await workspace(emulator);
    expect((await api.post('/v1/projects', { name: 'n'.repeat(80), slug: unique() })).status).toBe(201);
    for (const body of [{ name: 'n'.repeat(81) }, { name: '' }, { name: '   ' }, {}, { name: 'A', slug: unique(), llmsTxt: 'x' }]) {
      const res = await api.post('/v1/projects', body);
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect(res.body.code).toBe('svc.project.invalid');
    }
    expect(await projects(api)).toHaveLength(1);
  });
});

describe('reading projects', () => {
  it('lists newest first with cursors, only the own workspace', async () => {
    const { api } = await workspace(emulator);
    const other = await workspace(emulator);
    await other.api.post('/v1/projects', { name: 'Theirs', slug: unique() });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await api.post('/v1/projects', { name: `P${i}`, slug: unique() })).body.id);
    const page = await api.get('/v1/projects?limit=2');
    expectMatchesOpenApi(doc, 'GET', '/v1/projects', 200, page.body);
    expect(page.body.data.map((p: { id: string }) => p.id)).toEqual([ids[4], ids[3]]);
    expect(page.body.hasMore).toBe(true);
    expect((await walk(api, '/v1/projects', 2)).map((p) => p.id)).toEqual([...ids].reverse());
  });

  it("another workspace's project, or none, is 404 svc.project.not_found", async () => {
    const a = await workspace(emulator);
    const b = await workspace(emulator);
    const mine = (await a.api.post('/v1/projects', { name: 'Mine', slug: unique() })).body;
    for (const res of [
      await b.api.get(`/v1/projects/${mine.id}`),
      await b.api.patch(`/v1/projects/${mine.id}`, { name: 'X' }),
      await b.api.put(`/v1/projects/${mine.id}/address`, { slug: unique() }),
      await b.api.delete(`/v1/projects/${mine.id}`),
      await a.api.get('/v1/projects/prj_missing'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('svc.project.not_found');
    }
    expect((await a.api.get(`/v1/projects/${mine.id}`)).body.name).toBe('Mine');
  });

  it('projects:read reads, projects:write writes; neither implies the other; landings scopes do not reach projects', async () => {
    const writer = await workspace(emulator, { scopes: ['projects:write'] });
    const created = await writer.api.post('/v1/projects', { name: 'W', slug: unique() });
    expect(created.status).toBe(201);
    expect((await writer.api.get(`/v1/projects/${created.body.id}`)).status).toBe(403);
    expect((await writer.api.get('/v1/projects')).status).toBe(403);
    const reader = await workspace(emulator, { scopes: ['projects:read', 'landings:write'] });
    for (const res of [
      await reader.api.post('/v1/projects', { name: 'R', slug: unique() }),
      await reader.api.patch('/v1/projects/prj_x', { name: 'R' }),
      await reader.api.put('/v1/projects/prj_x/address', { slug: unique() }),
      await reader.api.delete('/v1/projects/prj_x'),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('svc.api_key.scope_missing');
    }
    expect(await projects(reader.api)).toEqual([]);
  });
});

describe('PATCH /v1/projects/{id}', () => {
  it('is partial: objects merge deeply, arrays are replaced whole', async () => {
    const { api } = await workspace(emulator);
    const p = (await api.post('/v1/projects', { name: 'Site', slug: unique() })).body;
    const first = await api.patch(`/v1/projects/${p.id}`, {
      robots: { disallow: ['/private', '/tmp'], raw: 'User-agent: Foo\nDisallow: /' },
      analytics: { gtmId: 'GTM-AB12CD' },
      sitemap: { extraUrls: [{ path: '/menu.pdf', priority: 0.8, changefreq: 'monthly' }, { path: '/legal?x=1' }] },
    });
    expect(first.status).toBe(200);
    expectMatchesOpenApi(doc, 'PATCH', '/v1/projects/{projectId}', 200, first.body);
    const second = await api.patch(`/v1/projects/${p.id}`, { robots: { aiTraining: true, disallow: ['/only'] }, analytics: { clarityId: 'abc123' } });
    expect(second.body).toMatchObject({
      name: 'Site',
      slug: p.slug,
      robots: { indexable: true, aiSearch: true, aiTraining: true, disallow: ['/only'], raw: 'User-agent: Foo\nDisallow: /' },
      analytics: { clarityId: 'abc123', gtmId: 'GTM-AB12CD', metaPixelId: '', posthogKey: '' },
      sitemap: {
        extraUrls: [
          { path: '/menu.pdf', priority: 0.8, changefreq: 'monthly' },
          { path: '/legal?x=1', priority: 0.5, changefreq: 'weekly' },
        ],
      },
    });
    const renamed = await api.patch(`/v1/projects/${p.id}`, { name: 'Renamed', sitemap: { extraUrls: [] } });
    expect(renamed.body).toMatchObject({ name: 'Renamed', sitemap: { extraUrls: [] }, robots: second.body.robots });
    expect(renamed.body.llmsTxt.text).toContain('# Renamed');
  });

  it('refuses what breaks a rule, naming the field, and changes nothing', async () => {
    const { api } = await workspace(emulator);
    const p = (await api.post('/v1/projects', { name: 'Site', slug: unique() })).body;
    const cases: [unknown, string][] = [
      [{ slug: 'moved' }, 'slug'],
      [{ name: '' }, 'name'],
      [{ locales: [] }, 'locales'],
      [{ locales: ['en', 'es', 'en'] }, 'locales'],
      [{ locales: ['es'] }, 'defaultLocale'],
      [{ defaultLocale: 'es' }, 'defaultLocale'],
      [{ robots: { indexable: 'yes' } }, 'robots.indexable'],
      [{ robots: { disallow: ['private'] } }, 'robots.disallow.0'],
      [{ robots: { disallow: ['/a b'] } }, 'robots.disallow.0'],
      [{ robots: { crawlDelay: 3 } }, 'robots.crawlDelay'],
      [{ robots: [] }, 'robots'],
      [[], '(body)'],
      [{ analytics: { gtmId: '<script>' } }, 'analytics.gtmId'],
      [{ sitemap: { extraUrls: [{ path: 'https://evil.example/' }] } }, 'sitemap.extraUrls.0.path'],
      [{ sitemap: { extraUrls: [{ path: '//evil.example/' }] } }, 'sitemap.extraUrls.0.path'],
      [{ sitemap: { extraUrls: [{ path: '/a', priority: 1.01 }] } }, 'sitemap.extraUrls.0.priority'],
      [{ sitemap: { extraUrls: [{ path: '/a', priority: -0.01 }] } }, 'sitemap.extraUrls.0.priority'],
      [{ sitemap: { extraUrls: [{ path: '/a', changefreq: 'sometimes' }] } }, 'sitemap.extraUrls.0.changefreq'],
      [{ llmsTxt: { text: 'x' } }, 'llmsTxt'],
    ];
    for (const [body, field] of cases) {
      const res = await api.patch(`/v1/projects/${p.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('svc.project.invalid');
      expect(res.body.errors[0].field).toBe(field);
    }
    expect((await api.get(`/v1/projects/${p.id}`)).body).toEqual(p);
  });

  it('priority 0 and 1 and every changefreq are accepted', async () => {
    const { api } = await workspace(emulator);
    const p = (await api.post('/v1/projects', { name: 'Site', slug: unique() })).body;
    const freqs = ['always', 'hourly', 'daily', 'weekly', 'monthly', 'yearly', 'never'];
    const extraUrls = freqs.map((changefreq, i) => ({ path: `/f${i}`, changefreq, priority: i % 2 }));
    const res = await api.patch(`/v1/projects/${p.id}`, { sitemap: { extraUrls } });
    expect(res.status).toBe(200);
    expect(res.body.sitemap.extraUrls).toEqual(extraUrls);
  });

  it('locales can grow to 2 and shrink back; the source language moves with them', async () => {
    const { api } = await workspace(emulator);
    const p = (await api.post('/v1/projects', { name: 'Site', slug: unique() })).body;
    expect((await api.patch(`/v1/projects/${p.id}`, { locales: ['en', 'es'] })).body).toMatchObject({ locales: ['en', 'es'], defaultLocale: 'en' });
    expect((await api.patch(`/v1/projects/${p.id}`, { defaultLocale: 'es' })).body.defaultLocale).toBe('es');
    const shrunk = await api.patch(`/v1/projects/${p.id}`, { locales: ['es'] });
    expect(shrunk.body).toMatchObject({ locales: ['es'], defaultLocale: 'es' });
    const swapped = await api.patch(`/v1/projects/${p.id}`, { locales: ['en'], defaultLocale: 'en' });
    expect(swapped.body).toMatchObject({ locales: ['en'], defaultLocale: 'en' });
  });
});
