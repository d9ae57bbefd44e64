import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseHTML } from 'linkedom';
import { beforeAll, describe, expect, it } from 'vitest';
import { send, type ApiResponse } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';

const emulator = await fileEmulator({ seed: 47 });
const ORIGIN = 'http://csp-test.localhost';
const site = (path: string, init: Parameters<typeof send>[3] & { method?: string } = {}) =>
  send(emulator, init.method ?? (init.body ? 'POST' : 'GET'), `${ORIGIN}${path}`, init);
let ws: Awaited<ReturnType<typeof workspace>>;
let project: { id: string };

// A Markdown body trying every spelling of "another host" a browser accepts in a link
// or an image, next to links and images that are fine.
const TRICKS = [
  '[a](/\\evil.example/a)',
  '[b](\\\\evil.example/b)',
  '[c](//evil.example/c)',
  '[d](<\\/evil.example/d>)',
  '<a href="/\\evil.example/e">e</a>',
  '<a href="\\/evil.example/f">f</a>',
  '<a href="/&#92;evil.example/g">g</a>',
  '<a href="&#47;&#47;evil.example/h">h</a>',
  '<a href="/&Tab;/evil.example/i">i</a>',
  '<a href=" //evil.example/j">j</a>',
  '<a href="/&NewLine;/evil.example/k">k</a>',
  '![l](/\\evil.example/l.png)',
  '<img src="\\\\evil.example/m.png">',
  '<img src="//evil.example/n.png">',
  '<img src="/&#92;evil.example/o.png">',
  '<img src="http://images.example/p.png">',
  '[ok-path](/menu)',
  '[ok-web](https://partner.example/)',
  '![ok-img](https://images.example/q.png)',
  '![ok-local](/files/x.png)',
].join('\n\n');

beforeAll(async () => {
  ws = await workspace(emulator);
  const { api } = ws;
  const agent = (await api.post('/v1/agents', { name: 'Nube', identity: { businessName: 'Nube' } })).body;
  await api.post('/v1/knowledge/text', { title: 'Hours', text: 'We open from 8:00 to 18:00.', agentId: agent.id });
  project = (await api.post('/v1/projects', { name: 'CSP test', slug: 'csp-test', locales: ['en'], defaultLocale: 'en' })).body;
  const logo = new FormData();
  logo.set('file', new File([readFileSync(new URL('../fixtures/assets/image.png', import.meta.url))], 'logo.png', { type: 'image/png' }));
  expect((await api.put(`/v1/projects/${project.id}/brand/logo`, logo)).status).toBe(200);
  const favicon = new FormData();
  favicon.set(
    'file',
    new File(['<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8"/></svg>'], 'f.svg', { type: 'image/svg+xml' }),
  );
  expect((await api.put(`/v1/projects/${project.id}/brand/favicon`, favicon)).status).toBe(200);
  expect(
    (
      await api.patch(`/v1/projects/${project.id}/brand`, {
        navbar: { links: [{ label: { es: '', en: 'Menu' }, href: '/menu' }], cta: { label: { es: '', en: 'Book' }, href: 'https://book.example/' } },
        footer: { text: { es: '', en: 'Clouds' }, links: [{ label: { es: '', en: 'Top' }, href: '#top' }] },
      })
    ).status,
  ).toBe(200);
  const home = (await api.post(`/v1/projects/${project.id}/pages`, { name: 'Home', kind: 'agent', path: '/', agentId: agent.id })).body;
  const menu = (await api.post(`/v1/projects/${project.id}/pages`, { name: 'Menu', kind: 'document', path: '/menu', body: { es: '', en: TRICKS } })).body;
  await api.post(`/v1/projects/${project.id}/pages`, { name: 'Draft', kind: 'document', path: '/draft', body: { es: '', en: 'Draft' } });
  for (const page of [home, menu]) expect((await api.post(`/v1/pages/${page.id}/publish`)).status).toBe(200);
  await emulator.drain();
});

/** The CSP of an answer as `{ directive: [sources] }`. */
function policy(res: ApiResponse): Record<string, string[]> {
  const header = res.headers.get('content-security-policy') ?? '';
  return Object.fromEntries(
    header
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

/** The CSP source of an inline style: its SHA-256, base64. */
const hashOf = (css: string) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`;

/** The `<style>` texts of an HTML answer (none for other answers). */
function inlineStyles(res: ApiResponse): string[] {
  if (!res.headers.get('content-type')?.startsWith('text/html')) return [];
  return [...parseHTML(res.text).document.querySelectorAll('style')].map((s) => s.textContent ?? '');
}

function expectSiteHeaders(res: ApiResponse, what: string, styles = inlineStyles(res)): void {
  expect(policy(res), what).toEqual({
    'default-src': ["'none'"],
    'script-src': ["'self'"],
    // Besides the site's files, exactly the page's own inline style, by its hash (D-871).
    'style-src': ["'self'", ...styles.map(hashOf)],
    'img-src': ["'self'", 'https:'],
    'connect-src': ["'self'"],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'self'"],
  });
  expect(res.headers.get('x-frame-options'), what).toBe('SAMEORIGIN');
  expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(res.headers.get('referrer-policy'), what).toBe('strict-origin-when-cross-origin');
  expect(res.headers.get('x-request-id'), what).toMatch(/^req_/);
}

describe('every answer of a hosted site', () => {
  it('carries the CSP, the framing rule, nosniff and the referrer policy', async () => {
    const opened = await site('/_site/chat', { body: { path: '/', message: 'When do you open?' } });
    expect(opened.status).toBe(201);
    const answers: [string, ApiResponse, number][] = [
      ['agent page', await site('/'), 200],
      ['document page', await site('/menu'), 200],
      ['HEAD of a page', await site('/', { method: 'HEAD' }), 200],
      ['robots.txt', await site('/robots.txt'), 200],
      ['sitemap.xml', await site('/sitemap.xml'), 200],
      ['llms.txt', await site('/llms.txt'), 200],
      ['stylesheet', await site('/_site/theme.css'), 200],
      ['chat script', await site('/_site/widget.js'), 200],
      ['chat opened', opened, 201],
      ['chat stream', await site(opened.body.streamUrl), 200],
      ['chat stream used', await site(opened.body.streamUrl), 404],
      ['chat refused', await site('/_site/chat', { body: { path: '/', message: '' } }), 400],
      ['chat on a document page', await site('/_site/chat', { body: { path: '/menu', message: 'hi' } }), 404],
      ['unpublished page', await site('/draft'), 404],
      ['unknown path', await site('/nope'), 404],
      ['wrong method', await site('/menu', { method: 'DELETE' }), 404],
      ['unknown host', await send(emulator, 'GET', 'http://nobody-here.localhost/'), 404],
    ];
    const home = inlineStyles(answers[0]![1]);
    for (const [what, res, status] of answers) {
      expect(res.status, what).toBe(status);
      // A HEAD has no body to read the style from: it is the page's.
      expectSiteHeaders(res, what, what.startsWith('HEAD') ? home : inlineStyles(res));
    }
  });

  it('leaves the API alone, and serves asset bytes with nosniff and a sandbox', async () => {
    const api = await ws.api.get('/v1/me');
    expect(api.headers.get('content-security-policy')).toBeNull();
    expect(api.headers.get('x-frame-options')).toBeNull();
    const { document } = parseHTML((await site('/')).text);
    const files = [document.querySelector('header img')!.getAttribute('src')!, document.querySelector('link[rel="icon"]')!.getAttribute('href')!];
    for (const url of files) {
      expect(url.startsWith(`${ORIGIN}/files/`)).toBe(true);
      const res = await send(emulator, 'GET', url);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      // An SVG opened on its own runs nothing: sandboxed, no script source at all.
      const csp = policy(res);
      expect(csp.sandbox).toEqual([]);
      expect(csp['default-src']).toEqual(["'none'"]);
      expect(csp['script-src']).toBeUndefined();
    }
  });
});

describe('the page under its CSP', () => {
  it('uses only what the CSP allows: its own script and stylesheet files, and one inline style allowed by its hash', async () => {
    for (const path of ['/', '/menu']) {
      const res = await site(path);
      const { document } = parseHTML(res.text);
      const scripts = [...document.querySelectorAll('script')];
      expect(
        scripts.map((s) => s.getAttribute('src')),
        path,
      ).toEqual(path === '/' ? ['/_site/widget.js'] : []);
      expect(
        scripts.every((s) => s.textContent === ''),
        path,
      ).toBe(true);
      // The theme's variables, nothing else, and the CSP names exactly that text.
      const styles = [...document.querySelectorAll('style')].map((s) => s.textContent ?? '');
      expect(styles, path).toHaveLength(1);
      expect(styles[0], path).toMatch(/^:root\{(--[a-z-]+:[^;{}<>]+;)*--[a-z-]+:[^;{}<>]+\}$/);
      expect(policy(res)['style-src'], path).toEqual(["'self'", hashOf(styles[0]!)]);
      const sheets = [...document.querySelectorAll('link[rel="stylesheet"]')].map((l) => l.getAttribute('href'));
      expect(sheets, path).toEqual(['/_site/theme.css']);
      // No inline style or handler anywhere, which the CSP would block.
      for (const el of document.querySelectorAll('*')) {
        for (const name of el.getAttributeNames()) expect(name === 'style' || name.startsWith('on'), `${path} <${el.tagName} ${name}>`).toBe(false);
      }
      // Images: the site's own files, or https.
      for (const img of [...document.querySelectorAll('img[src], link[rel="icon"]')]) {
        const url = new URL(img.getAttribute('src') ?? img.getAttribute('href')!, `${ORIGIN}${path}`);
        expect(url.origin === ORIGIN || url.protocol === 'https:', `${path} image ${url.href}`).toBe(true);
      }
    }
    const js = await site('/_site/widget.js');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    // The script talks to its own site only (connect-src 'self').
    expect([...js.text.matchAll(/(?:fetch|EventSource)\(([^,)]+)/g)].map((m) => m[1])).toEqual(["'/_site/chat'", 'streamUrl']);
    expect((await site('/_site/theme.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
    // A site that does not exist has no files either.
    expect((await send(emulator, 'GET', 'http://nobody-here.localhost/_site/widget.js')).status).toBe(404);
  });

  it('keeps every link and image of a Markdown body on the site, or says where it goes', async () => {
    const { document } = parseHTML((await site('/menu')).text);
    const main = document.querySelector('main')!;
    const hrefs = [...main.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href')]);
    const srcs = [...main.querySelectorAll('img')].map((i) => i.getAttribute('src'));
    for (const address of [...hrefs.map(([, h]) => h), ...srcs]) {
      if (address === null) continue;
      // Written with a scheme (https), or resolving to the page's own origin.
      const absolute = URL.canParse(address);
      expect(absolute ? new URL(address).protocol : new URL(address, `${ORIGIN}/menu`).origin, address).toBe(absolute ? 'https:' : ORIGIN);
    }
    // What stays is a path on the site (percent-encoded, a browser reads it as one).
    expect(hrefs.filter(([, h]) => h?.includes('evil.example'))).toEqual([
      ['a', '/%5Cevil.example/a'],
      ['b', '%5Cevil.example/b'],
      ['d', '/evil.example/d'],
    ]);
    expect(srcs.filter((src) => src?.includes('evil.example'))).toEqual(['/%5Cevil.example/l.png']);
    // An image with no address left is not drawn at all.
    expect(srcs).not.toContain(null);
    expect(hrefs).toContainEqual(['ok-path', '/menu']);
    expect(hrefs).toContainEqual(['ok-web', 'https://partner.example/']);
    expect(srcs).toEqual(expect.arrayContaining(['https://images.example/q.png', '/files/x.png']));
    // An http image would be blocked by img-src: it is not written at all.
    expect(srcs).not.toContain('http://images.example/p.png');
  });

  it('draws no brand link that leaves the site by a trick, even one stored before the rule', async () => {
    const state = (await send(emulator, 'GET', '/_emulator/state')).body;
    const row = state.tables.brands.find((r: { project_id: string }) => r.project_id === project.id);
    const navbar = JSON.parse(row.navbar);
    navbar.links.push({ label: { es: '', en: 'Trick' }, href: '/\\evil.example/' });
    navbar.cta.href = '/\\evil.example/book';
    row.navbar = JSON.stringify(navbar);
    // A state file carrying it is refused, naming the row's field (D-720)...
    const refused = await send(emulator, 'PUT', '/_emulator/state', { body: state });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body.errors)).toContain('navbar');
    expect((await site('/')).text).toContain('<a href="/menu">Menu</a>');
    // ...and one written into the store by other means never reaches the page.
    await emulator.service.db.updateTable('brands').set({ navbar: row.navbar }).where('project_id', '=', project.id).execute();
    const page = await site('/');
    expect(page.status).not.toBe(500);
    expect(page.text).not.toContain('evil.example');
    expect(page.text).not.toContain('class="cta"');
  });
});
