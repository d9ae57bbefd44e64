import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, send } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';

const emulator = await fileEmulator({ seed: 31 });
const site = (path: string, init: Parameters<typeof send>[3] = {}) => send(emulator, init.body ? 'POST' : 'GET', `http://cafe-test.localhost${path}`, init);
let ws: Awaited<ReturnType<typeof workspace>>;
let project: { id: string };
let home: { id: string };
let hidden: { id: string };

beforeAll(async () => {
  ws = await workspace(emulator);
  const { api } = ws;
  const agent = (await api.post('/v1/agents', { name: 'Aurora', identity: { businessName: 'Café' } })).body;
  await api.post('/v1/knowledge/text', { title: 'Hours', text: 'We open every day from 9:00 to 20:00 in Valencia.', agentId: agent.id });
  project = (await api.post('/v1/projects', { name: 'Café Test', slug: 'cafe-test', locales: ['es', 'en'], defaultLocale: 'es' })).body;
  await api.patch(`/v1/projects/${project.id}`, {
    robots: { disallow: ['/private'], raw: 'User-agent: Bingbot\nCrawl-delay: 5' },
    sitemap: { extraUrls: [{ path: '/shop', priority: 0.3, changefreq: 'daily' }] },
  });
  await api.patch(`/v1/projects/${project.id}/theme`, { tokens: { colors: { primary: '#7a4a2b' }, typography: { heading: 'lora' } } });
  const logo = new FormData();
  logo.set(
    'file',
    new File(['<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><circle cx="5" cy="5" r="4"/></svg>'], 'logo.svg', { type: 'image/svg+xml' }),
  );
  expect((await api.put(`/v1/projects/${project.id}/brand/logo`, logo)).status).toBe(200);
  expect(
    (
      await api.patch(`/v1/projects/${project.id}/brand`, {
        navbar: { links: [{ label: { es: 'Carta', en: 'Menu' }, href: '/menu' }] },
        footer: { text: { es: 'Tostadores en Valencia', en: 'Roasters in Valencia' }, links: [] },
      })
    ).status,
  ).toBe(200);
  home = (
    await api.post(`/v1/projects/${project.id}/pages`, {
      name: 'Home',
      kind: 'agent',
      path: '/',
      agentId: agent.id,
      editorial: { title: { es: 'Pregunta a', en: 'Ask' }, titleAccent: { es: 'Aurora', en: 'Aurora' } },
      seo: { title: { es: 'Café de especialidad', en: 'Specialty coffee' }, description: { es: 'Tostado en Valencia', en: 'Roasted in Valencia' } },
      sitemap: { priority: 1 },
    })
  ).body;
  const menu = (
    await api.post(`/v1/projects/${project.id}/pages`, {
      name: 'Menu',
      kind: 'document',
      path: '/menu',
      body: {
        es: '# Carta\n\n**Café** <script>alert(1)</script><img src=x onerror="alert(2)">\n\n[pide](javascript:alert(3))',
        en: '# Menu\n\n| Drink | Price |\n|---|---|\n| Espresso | 1.80 |',
      },
      seo: { title: { es: 'Carta', en: '' } },
    })
  ).body;
  const excluded = (
    await api.post(`/v1/projects/${project.id}/pages`, {
      name: 'Legal',
      kind: 'document',
      path: '/legal',
      body: { es: 'Aviso', en: '' },
      sitemap: { sitemapExclude: true },
    })
  ).body;
  hidden = (await api.post(`/v1/projects/${project.id}/pages`, { name: 'Draft', kind: 'document', path: '/draft', body: { es: 'Borrador', en: '' } })).body;
  for (const page of [home, menu, excluded]) expect((await api.post(`/v1/pages/${page.id}/publish`)).status).toBe(200);
  await emulator.drain();
});

describe('hosted sites', () => {
  it('render a published page as complete HTML with the theme, SEO texts and the other language', async () => {
    const res = await site('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.text).toMatch(/^<!doctype html>\n<html lang="es">/);
    expect(res.text).toContain('<title>Café de especialidad</title>');
    expect(res.text).toContain('<meta name="description" content="Tostado en Valencia">');
    // The theme's variables are in the page, the layout in the site's stylesheet (D-871).
    expect(res.text).toContain('<style>:root{--color-primary:#7a4a2b;');
    expect(res.text).toContain("--font-heading:'Lora', ui-serif, Georgia, serif;");
    const sheet = /<link rel="stylesheet" href="([^"]+)">/.exec(res.text)?.[1];
    const css = await site(sheet!);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.text).toContain('background:var(--color-primary)');
    expect(res.text).toContain('Pregunta a <span class="accent">Aurora</span>');
    expect(res.text).toContain('hreflang="en" href="http://cafe-test.localhost/?lang=en"');
    const en = await site('/?lang=en');
    expect(en.text).toContain('<html lang="en">');
    expect(en.text).toContain('<title>Specialty coffee</title>');
    expect((await site('/?lang=fr')).text).toContain('<html lang="es">');
  });

  it('show the brand: logo served on the site host, navbar and footer in the page language', async () => {
    const es = await site('/');
    const logo = /<a class="brand" href="\/"><img src="([^"]+)"/.exec(es.text)?.[1];
    expect(logo).toMatch(/^http:\/\/cafe-test\.localhost\/files\//);
    const file = await send(emulator, 'GET', logo!.replaceAll('&amp;', '&'));
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/svg+xml');
    expect(es.text).toContain('<nav><a href="/menu">Carta</a></nav>');
    expect(es.text).toContain('<span>Tostadores en Valencia</span>');
    const en = await site('/?lang=en');
    // A visitor reading the site's other language stays in it from link to link.
    expect(en.text).toContain('<nav><a href="/menu?lang=en">Menu</a></nav>');
    expect(en.text).toContain('<a class="brand" href="/?lang=en">');
    expect(en.text).toContain('<span>Roasters in Valencia</span>');
    const menu = await site('/menu?lang=en');
    expect([menu.status, /<html lang="(\w+)">/.exec(menu.text)?.[1]]).toEqual([200, 'en']);
    // With no favicon in the brand, the page names the site's own icon (no request for /favicon.ico).
    expect(es.text).toContain('<link rel="icon" href="/_site/favicon.svg">');
    const icon = await site('/_site/favicon.svg');
    expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
    expect((await site('/favicon.ico')).status).toBe(404);
  });

  it("show an agent page written in one language in the site's other one in its own words, marked, not with an empty heading", async () => {
    const agents = (await ws.api.get('/v1/agents')).body.data as { id: string }[];
    const solo = await ws.api.post(`/v1/projects/${project.id}/pages`, {
      name: 'Solo',
      kind: 'agent',
      path: '/solo',
      agentId: agents[0]!.id,
      editorial: {
        title: { es: 'Solo en', en: '' },
        titleAccent: { es: 'español', en: '' },
        badge: { es: 'Nuevo', en: '' },
        description: { es: 'Pregunte.', en: '' },
      },
    });
    expect(solo.status, solo.text).toBe(201);
    expect((await ws.api.post(`/v1/pages/${solo.body.id}/publish`)).status).toBe(200);
    const en = await site('/solo?lang=en');
    expect(en.text).toContain('<html lang="en">');
    expect(en.text).toContain('<h1 lang="es">Solo en <span class="accent">español</span></h1>');
    expect(en.text).toContain('<span class="badge" lang="es">Nuevo</span>');
    expect(en.text).toContain('<p class="lead" lang="es">Pregunte.</p>');
    // The chat's own texts are the page's language.
    expect(en.text).toContain('placeholder="Type your question…"');
    expect((await site('/solo')).text).toContain('<h1>Solo en <span class="accent">español</span></h1>');
    expect((await ws.api.post(`/v1/pages/${solo.body.id}/unpublish`)).status).toBe(200);
  });

  it('link with a name in either language, and keep the query and fragment of a link when adding the language', async () => {
    const patched = await ws.api.patch(`/v1/projects/${project.id}/brand`, {
      navbar: {
        links: [{ label: { es: 'Carta', en: 'Menu' }, href: '/menu?view=full#top' }],
        cta: { label: { es: 'Reservar', en: '' }, href: 'https://example.com/book' },
      },
      footer: { links: [{ label: { en: 'Docs', es: '' }, href: '/docs' }] },
    });
    expect(patched.status, patched.text).toBe(200);
    const en = await site('/?lang=en');
    expect(en.text).toContain('<a href="/menu?view=full&amp;lang=en#top">Menu</a>');
    // A link written in one language only is named in it, not drawn empty; a link off the site is as written.
    expect(en.text).toContain('<a class="cta" href="https://example.com/book">Reservar</a>');
    expect((await site('/')).text).toContain('<a href="/docs">Docs</a>');
  });

  it('render Markdown bodies with a library and strip anything executable', async () => {
    const es = await site('/menu');
    expect(es.text).toContain('<h1>Carta</h1>');
    expect(es.text).toContain('<strong>Café</strong>');
    expect(es.text).not.toMatch(/alert\(|onerror|javascript:/);
    const en = await site('/menu?lang=en');
    expect(en.text).toContain('<td>Espresso</td>');
    // An empty SEO text inherits the home page's.
    expect(en.text).toContain('<title>Specialty coffee</title>');
    expect(es.text).toContain('<title>Carta</title>');
  });

  it("render a task list's boxes and tel: links, and no form field a page could ask a visitor to fill in", async () => {
    const page = await ws.api.post(`/v1/projects/${project.id}/pages`, {
      name: 'Tasks',
      kind: 'document',
      path: '/tasks',
      body: {
        es: '- [ ] abierto\n- [x] hecho\n\n[Llámanos](tel:+34600000000)\n\n<input type="password" name="pw"><input type="checkbox" onclick="x()">',
        en: '',
      },
    });
    expect((await ws.api.post(`/v1/pages/${page.body.id}/publish`)).status).toBe(200);
    const { text } = await site('/tasks');
    expect(text).toContain('<li><input type="checkbox" disabled /> abierto</li>');
    expect(text).toContain('<li><input type="checkbox" disabled checked /> hecho</li>');
    expect(text).toContain('<a href="tel:+34600000000">Llámanos</a>');
    expect(text).not.toMatch(/password|onclick/);
    expect((await ws.api.post(`/v1/pages/${page.body.id}/unpublish`)).status).toBe(200);
  });

  it('mark a body shown in its source language where the page has none in the one asked (D-1103)', async () => {
    const en = await site('/legal?lang=en');
    expect(en.text).toContain('<html lang="en">');
    expect(en.text).toMatch(/<main data-kind="document" lang="es"><p>Aviso<\/p>/);
    const es = await site('/legal');
    expect(es.text).toMatch(/<main data-kind="document"><p>Aviso<\/p>/);
  });

  it("answer a site's name written with the root's dot as the site itself, not as the emulator (D-1180)", async () => {
    const plain = await site('/menu');
    for (const host of ['cafe-test.localhost.', 'CAFE-TEST.LOCALHOST.']) {
      const dotted = await send(emulator, 'GET', `http://${host}/menu`);
      expect([dotted.status, dotted.headers.get('content-type')], host).toEqual([200, 'text/html; charset=utf-8']);
      // Its links keep the name as the visitor wrote it: the browser stays on that origin.
      expect(dotted.text.replaceAll(host.toLowerCase(), 'cafe-test.localhost'), host).toBe(plain.text);
      expect(dotted.headers.get('content-security-policy'), host).toBe(plain.headers.get('content-security-policy'));
    }
    const home = await send(emulator, 'GET', 'http://cafe-test.localhost./', { headers: { accept: 'text/html' } });
    expect(home.text).toContain('<html lang="es">');
    expect((await send(emulator, 'GET', 'http://cafe-test.localhost./nope')).body.code).toBe('svc.host.not_found');
  });

  it('answer an unknown host and an unpublished page with the same 404', async () => {
    const strip = (r: { body: Record<string, unknown> }) => ({ ...r.body, requestId: undefined, instance: undefined });
    const draft = await site('/draft');
    const unknown = await send(emulator, 'GET', 'http://nobody-here.localhost/draft');
    const nested = await send(emulator, 'GET', 'http://a.cafe-test.localhost/');
    const wrongMethod = await send(emulator, 'DELETE', 'http://cafe-test.localhost/menu');
    for (const r of [draft, unknown, nested, wrongMethod, await site('/nope')]) {
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('svc.host.not_found');
    }
    expect(strip(draft)).toEqual(strip(unknown));
    // A page is served at its path and nothing else (CONTRACT, D-1167): not with a
    // trailing slash or an empty segment; and a long run of slashes is no work.
    expect((await site('/menu')).status).toBe(200);
    for (const path of ['/menu/', '/menu///', '//', '//menu']) expect((await site(path)).status, path).toBe(404);
    expect((await site(`/x${'/'.repeat(30_000)}y`)).status).toBe(404);
    await ws.api.post(`/v1/pages/${hidden.id}/publish`);
    expect((await site('/draft')).status).toBe(200);
    await ws.api.post(`/v1/pages/${hidden.id}/unpublish`);
    expect((await site('/draft')).status).toBe(404);
  });

  it('serve robots.txt from the robots settings, raw rules appended', async () => {
    const res = await site('/robots.txt');
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.text).toContain('User-agent: *\nAllow: /\nDisallow: /private');
    expect(res.text).toContain('User-agent: GPTBot\nDisallow: /');
    // A crawler reads only its own group: an AI search bot let in keeps off /private too.
    expect(res.text).toContain('User-agent: OAI-SearchBot\nAllow: /\nDisallow: /private\n');
    expect(res.text).toContain('Sitemap: http://cafe-test.localhost/sitemap.xml');
    expect(res.text.trimEnd().endsWith('User-agent: Bingbot\nCrawl-delay: 5')).toBe(true);
    await ws.api.patch(`/v1/projects/${project.id}`, { robots: { indexable: false } });
    expect((await site('/robots.txt')).text).toMatch(/^User-agent: \*\nDisallow: \/\n/);
    await ws.api.patch(`/v1/projects/${project.id}`, { robots: { indexable: true } });
  });

  it('serve sitemap.xml with published pages by priority, without excluded ones, with extraUrls', async () => {
    const res = await site('/sitemap.xml');
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    const locs = [...res.text.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    expect(locs).toEqual(['http://cafe-test.localhost/', 'http://cafe-test.localhost/menu', 'http://cafe-test.localhost/shop']);
    expect(res.text).toContain('<priority>1.0</priority>');
    expect(res.text).toContain('<changefreq>daily</changefreq>');
  });

  it('answer a site with nothing published as an unknown host, whatever is asked of it', async () => {
    const { api } = ws;
    const quiet = (await api.post('/v1/projects', { name: 'Quiet Roasters', slug: 'quiet-site' })).body;
    await api.patch(`/v1/projects/${quiet.id}`, { robots: { raw: 'User-agent: SecretBot' } });
    const draft = (await api.post(`/v1/projects/${quiet.id}/pages`, { name: 'About', kind: 'document', path: '/about', body: { es: 'Hola', en: '' } })).body;
    const strip = (r: { status: number; body: Record<string, unknown> }) => ({ status: r.status, ...r.body, requestId: undefined, instance: undefined });
    const ask = (host: string, path: string, body?: unknown) => send(emulator, body ? 'POST' : 'GET', `http://${host}.localhost${path}`, body ? { body } : {});
    const paths = ['/', '/robots.txt', '/llms.txt', '/sitemap.xml', '/_site/widget.js', '/_site/theme.css', '/about'];
    for (const path of paths) {
      const quietAnswer = await ask('quiet-site', path);
      expect(quietAnswer.status, path).toBe(404);
      expect(strip(quietAnswer), path).toEqual(strip(await ask('nobody-here', path)));
      expect(quietAnswer.text).not.toMatch(/Quiet Roasters|SecretBot/);
    }
    for (const body of [
      { path: '/', message: 'hi' },
      { path: '/', message: '' },
    ]) {
      expect(strip(await ask('quiet-site', '/_site/chat', body))).toEqual(strip(await ask('nobody-here', '/_site/chat', body)));
    }
    // Once a page is published, the site's files are served.
    await api.post(`/v1/pages/${draft.id}/publish`);
    const robots = await ask('quiet-site', '/robots.txt');
    expect(robots.status).toBe(200);
    expect(robots.text).toContain('User-agent: SecretBot');
    expect((await ask('quiet-site', '/about')).status).toBe(200);
  });

  it('serve llms.txt from the project', async () => {
    const res = await site('/llms.txt');
    expect(res.status).toBe(200);
    expect(res.text).toContain('# Café Test');
    expect(res.text).toContain('[Carta](/menu)');
    expect(res.text).not.toContain('/draft');
  });

  it('chat on agent pages through the emulator, streamed, spending the workspace credit', async () => {
    const before = (await ws.api.get('/v1/usage')).body.messages.used;
    const opened = await site('/_site/chat', { body: { path: '/', message: 'When do you open?' } });
    expect(opened.status).toBe(201);
    expect(opened.body.streamUrl).toMatch(/^\/_site\/chat\/[0-9A-Za-z]+$/);
    const stream = await site(opened.body.streamUrl);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const events: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (e) => events.push(e) });
    parser.feed(stream.text);
    expect(events[0]!.event).toBe('start');
    const tokens = events
      .filter((e) => e.event === 'token')
      .map((e) => JSON.parse(e.data).text)
      .join('');
    const done = JSON.parse(events.at(-1)!.data);
    expect(events.at(-1)!.event).toBe('done');
    expect(tokens).toBe(done.reply);
    expect(done.reply).toMatch(/9:00/);
    expect(done.conversationId).toBe(opened.body.conversationId);
    expect((await ws.api.get('/v1/usage')).body.messages.used).toBe(before + 1);
    // The stream URL is single-use.
    expect((await site(opened.body.streamUrl)).status).toBe(404);
  });

  it('refuse chat on document pages, unknown paths and bad bodies, spending nothing', async () => {
    const before = (await ws.api.get('/v1/usage')).body.messages.used;
    expect((await site('/_site/chat', { body: { path: '/menu', message: 'hi' } })).body.code).toBe('svc.host.not_found');
    expect((await site('/_site/chat', { body: { path: '/nope', message: 'hi' } })).status).toBe(404);
    const bad = await site('/_site/chat', { body: { path: '/', message: '' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('message');
    expect((await site('/_site/chat', { body: { path: '/', message: 'hi', agentId: 'x' } })).status).toBe(400);
    expect((await ws.api.get('/v1/usage')).body.messages.used).toBe(before);
  });

  it('leave /files to the signed asset route on any host, and the API on localhost', async () => {
    expect((await site('/files/ast_missing')).body.code).not.toBe('svc.host.not_found');
    expect((await client(emulator, ws.key).get('/v1/me')).status).toBe(200);
  });
});
