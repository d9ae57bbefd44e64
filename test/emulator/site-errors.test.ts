import { createHash } from 'node:crypto';
import { rawRequest } from '../support/raw-request.js';
import { parseHTML } from 'linkedom';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { rootVariables } from '../../emulator/sites/theme-style.js';
import { client, send, type ApiResponse } from '../support/client.js';
import { fileEmulator, quiet } from '../support/emulator.js';

// The theme's variables in the page, the problem links, and the error pages of a site's host.
const emulator = await fileEmulator({ fixtures: 'demo', seed: 5 });
const DEMO_KEY = 'svc_test_DemoFullAccessKey000000000000001_0k1rIW';
const api = client(emulator, DEMO_KEY);
const SITE = 'http://cafe-aurora.localhost';
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8' };
const site = (path: string, headers: Record<string, string> = {}) => send(emulator, 'GET', `${SITE}${path}`, { headers });
let port: number;
let projectId: string;

beforeAll(async () => {
  port = (await emulator.listen({ port: 0 })).port;
  projectId = (await api.get('/v1/projects')).body.data.find((p: { slug: string }) => p.slug === 'cafe-aurora').id;
});

/** A request on the port with a Host header of our choosing (fetch would not let us). */
const onPort = (path: string, headers: Record<string, string>, to = port) => rawRequest({ port: to, path, headers });

const hashOf = (css: string) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`;
const styleSrc = (csp: string | null | undefined) => /style-src ([^;]+)/.exec(csp ?? '')?.[1]?.split(' ');

/** The page's inline styles, read the way a browser would build its DOM. */
const stylesOf = (html: string) => [...parseHTML(html).document.querySelectorAll('style')].map((s) => s.textContent ?? '');

/** `--name:value` pairs of a `:root{...}` rule. */
function variablesOf(css: string): Record<string, string> {
  const body = /^:root\{(.*)\}$/.exec(css)?.[1] ?? '';
  return Object.fromEntries(body.split(';').map((d) => [d.slice(0, d.indexOf(':')), d.slice(d.indexOf(':') + 1)]));
}

describe("the theme's CSS variables in the page (CONTRACT, Public sites)", () => {
  it("every page carries the theme service's variables inline, and its CSP allows exactly that text by its hash", async () => {
    const theme = (await api.get(`/v1/projects/${projectId}/theme`)).body;
    expect(theme.cssVariables['--color-primary']).toBe('#7a4a2b');
    for (const path of ['/', '/menu', '/?lang=en']) {
      const page = await site(path);
      expect(page.status, path).toBe(200);
      const styles = stylesOf(page.text);
      expect(styles, path).toHaveLength(1);
      expect(variablesOf(styles[0]!), path).toEqual(theme.cssVariables);
      expect(styleSrc(page.headers.get('content-security-policy')), path).toEqual(["'self'", hashOf(styles[0]!)]);
    }
    // The site's stylesheet is the layout only: the same for every site, no theme value in it.
    const css = await site('/_site/theme.css');
    expect(css.text).toContain('color:var(--color-ink)');
    expect(css.text).not.toContain('#7a4a2b');
  });

  it('a theme change shows in the next page, and the hash follows it', async () => {
    const before = await site('/');
    expect((await api.patch(`/v1/projects/${projectId}/theme`, { tokens: { colors: { primary: '#0f766e' }, radius: 'full' } })).status).toBe(200);
    try {
      const after = await site('/');
      const style = stylesOf(after.text)[0]!;
      expect(variablesOf(style)).toMatchObject({ '--color-primary': '#0f766e', '--radius': '9999px' });
      expect(styleSrc(after.headers.get('content-security-policy'))).toEqual(["'self'", hashOf(style)]);
      expect(after.headers.get('content-security-policy')).not.toBe(before.headers.get('content-security-policy'));
    } finally {
      await api.patch(`/v1/projects/${projectId}/theme`, { tokens: { colors: { primary: '#7a4a2b' }, radius: 'lg' } });
    }
    expect(stylesOf((await site('/')).text)).toEqual(stylesOf(before.text));
  });

  it('a value that is no theme value never reaches the CSS: the default stands in', () => {
    const css = rootVariables({
      '--color-primary': '#fff;}body{background:url(https://evil.example/beacon)}a{',
      '--color-accent': '#ABCDEF',
      '--font-body': 'Comic Sans MS',
      '--radius': '1px}*{display:none',
      '--evil': 'red',
    });
    expect(css).toBe(
      ":root{--color-primary:#4f46e5;--color-accent:#ABCDEF;--color-surface:#ffffff;--color-ink:#111827;--color-muted:#6b7280;--font-heading:'Inter', ui-sans-serif, system-ui, sans-serif;--font-body:'Inter', ui-sans-serif, system-ui, sans-serif;--radius:0.375rem}",
    );
  });

  it('a state file with such a token is refused, or its page shows the default in its place', async () => {
    const state = (await send(emulator, 'GET', '/_emulator/state')).body;
    const row = state.tables.themes.find((r: { project_id: string }) => r.project_id === projectId);
    const tokens = JSON.parse(row.tokens);
    tokens.colors.primary = '#fff;}body{background:url(https://evil.example/beacon)}a{';
    row.tokens = JSON.stringify(tokens);
    const restored = await send(emulator, 'PUT', '/_emulator/state', { body: state });
    // Refused by the state gate (issue 24), or taken: then the page must still be harmless.
    expect([200, 400]).toContain(restored.status);
    const page = await site('/');
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('evil.example');
    expect(variablesOf(stylesOf(page.text)[0]!)['--color-primary']).toBe(restored.status === 200 ? '#4f46e5' : '#7a4a2b');
    await send(emulator, 'POST', '/_emulator/reset');
  });
});

describe('problem documents: nosniff, and a type that resolves', () => {
  it('on a port, the type is under the address the emulator listens on, whatever the Host header says', async () => {
    const evil = await onPort('/v1/me', { host: 'evil.example' });
    expect(evil.status).toBe(401);
    expect(JSON.parse(evil.text).type).toBe(`http://127.0.0.1:${port}/docs/errors/svc.api_key.invalid`);
    expect(evil.headers['x-content-type-options']).toBe('nosniff');
    // Listening on every interface: the address the client reached, which it can reach again.
    const wildcard = await emulator.listen({ host: '0.0.0.0', port: 0 });
    try {
      const { type } = JSON.parse((await onPort('/v1/me', { host: 'evil.example' }, wildcard.port)).text);
      expect(type).toBe(`http://127.0.0.1:${wildcard.port}/docs/errors/svc.api_key.invalid`);
    } finally {
      await wildcard.close();
    }
  });

  it("on a site's host, the type points at the emulator's own error reference, which answers 200", async () => {
    const problem = await onPort('/nope', { host: `cafe-aurora.localhost:${port}`, accept: 'application/json' });
    expect(problem.status).toBe(404);
    const { type, code } = JSON.parse(problem.text);
    expect(code).toBe('svc.host.not_found');
    expect(type).toBe(`http://127.0.0.1:${port}/docs/errors/svc.host.not_found`);
    const reference = await fetch(type, { headers: BROWSER });
    expect(reference.status).toBe(200);
    expect(await reference.text()).toContain('<code>svc.host.not_found</code> · HTTP 404');
  });

  it('in process (no port), the type is under http://localhost, where emulator.fetch() finds it', async () => {
    const problem = await site('/nope');
    expect(problem.body.type).toBe('http://localhost/docs/errors/svc.host.not_found');
    const viaFetch = await emulator.fetch(problem.body.type, { headers: { accept: 'application/json' } });
    expect(viaFetch.status).toBe(200);
    expect(await viaFetch.json()).toMatchObject({ code: 'svc.host.not_found', status: 404 });
  });

  it('the docsUrl setting wins over both', async () => {
    const configured = await createEmulator({ docsUrl: 'https://docs.example/api/', log: quiet });
    try {
      expect((await send(configured, 'GET', '/v1/me')).body.type).toBe('https://docs.example/api/errors/svc.api_key.invalid');
    } finally {
      await configured.close();
    }
  });

  it('every problem answer is sent with nosniff: /v1, console, control plane, sites, files', async () => {
    const answers: [string, ApiResponse][] = [
      ['/v1', await send(emulator, 'GET', '/v1/agents/agt_nope', { key: DEMO_KEY })],
      ['console', await send(emulator, 'GET', '/workspaces/ws_nope/keys')],
      ['control plane', await send(emulator, 'POST', '/_emulator/faults', { body: {} })],
      ['site', await site('/nope')],
      ['files', await send(emulator, 'GET', '/files/ast_nope?expires=1&signature=x')],
      ['unknown route', await send(emulator, 'GET', '/nowhere')],
    ];
    for (const [what, res] of answers) {
      expect(res.status, what).toBeGreaterThanOrEqual(400);
      expect(res.headers.get('content-type'), what).toMatch(/json/);
      expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
    }
  });
});

describe("a site's host shows a problem to a browser as a page", () => {
  it('a missing page: 404, themed, in the site language, with the brand and a link home, under the strict CSP', async () => {
    const home = await site('/');
    const res = await site('/nope', BROWSER);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const { document } = parseHTML(res.text);
    expect(document.documentElement.getAttribute('lang')).toBe('es');
    expect(document.querySelector('title')!.textContent).toBe('Página no encontrada · Café Aurora');
    expect(document.querySelector('h1')!.textContent).toBe('Página no encontrada');
    expect(document.querySelector('a.home')!.getAttribute('href')).toBe('/');
    expect([...document.querySelectorAll('header nav a')].map((a) => a.textContent)).toEqual(['Inicio', 'Carta', 'Nosotros']);
    expect(document.querySelector('footer')!.textContent).toContain('Tostadores en Valencia');
    expect(document.querySelector('.problem-code')!.textContent).toBe(`404 · svc.host.not_found · ${res.headers.get('x-request-id')}`);
    // The same theme as the site's pages, allowed by its hash; no script at all.
    const styles = stylesOf(res.text);
    expect(styles).toEqual(stylesOf(home.text));
    expect(styleSrc(res.headers.get('content-security-policy'))).toEqual(["'self'", hashOf(styles[0]!)]);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(document.querySelectorAll('script')).toHaveLength(0);
    // An unpublished page looks the same as a path that never was.
    const draft = await site('/draft', BROWSER);
    expect(draft.text.replace(/req_\w+/g, '')).toBe(res.text.replace(/req_\w+/g, ''));
  });

  it('?lang= picks another language the site serves; an unserved one keeps the default', async () => {
    const en = parseHTML((await site('/nope?lang=en', BROWSER)).text).document;
    expect(en.querySelector('h1')!.textContent).toBe('Page not found');
    expect(en.querySelector('a.home')!.getAttribute('href')).toBe('/?lang=en');
    expect([...en.querySelectorAll('header nav a')].map((a) => a.textContent)).toEqual(['Home', 'Menu', 'About us']);
    const fr = parseHTML((await site('/nope?lang=fr', BROWSER)).text).document;
    expect(fr.documentElement.getAttribute('lang')).toBe('es');
  });

  it('API clients keep the problem document: Accept JSON, problem+json, a bare wildcard or none', async () => {
    for (const accept of ['application/json', 'application/problem+json', '*/*', undefined, 'text/html;q=0.5, application/json', 'text/html;q=0']) {
      const res = await site('/nope', accept === undefined ? {} : { accept });
      expect(res.status, accept).toBe(404);
      expect(res.headers.get('content-type'), accept).toBe('application/problem+json');
      expect(res.body.code, accept).toBe('svc.host.not_found');
    }
    // HTML ranked first wins, whatever else is listed.
    for (const accept of ['text/html', 'application/json;q=0.9, text/html', 'text/*']) {
      expect((await site('/nope', { accept })).headers.get('content-type'), accept).toBe('text/html; charset=utf-8');
    }
  });

  it('a failure (here an injected 503, then a 500) is a themed page with its status for a browser, a problem for a client', async () => {
    await send(emulator, 'POST', '/_emulator/faults', { body: { match: { path: '/menu' }, status: 503, times: 2 } });
    const page = await site('/menu', BROWSER);
    expect(page.status).toBe(503);
    const { document } = parseHTML(page.text);
    expect(document.querySelector('h1')!.textContent).toBe('Servicio no disponible');
    expect(document.querySelector('header')).not.toBeNull();
    expect(styleSrc(page.headers.get('content-security-policy'))).toEqual(["'self'", hashOf(stylesOf(page.text)[0]!)]);
    const problem = await site('/menu');
    expect(problem.status).toBe(503);
    expect(problem.body.code).toBe('svc.service.unavailable');
    // A fault answers before the site is looked at: its answer still carries the site's headers.
    expect(styleSrc(problem.headers.get('content-security-policy'))).toEqual(["'self'"]);
    expect(problem.headers.get('x-frame-options')).toBe('SAMEORIGIN');

    await send(emulator, 'POST', '/_emulator/faults', { body: { match: { path: '/menu' }, status: 500, times: 1 } });
    const failed = await site('/menu?lang=en', BROWSER);
    expect(failed.status).toBe(500);
    expect(parseHTML(failed.text).document.querySelector('h1')!.textContent).toBe('Something went wrong');
    expect((await site('/menu', BROWSER)).status).toBe(200);
  });

  it('an unknown host, and a site with nothing published, get the same neutral page; in the visitor language', async () => {
    expect((await api.post('/v1/projects', { name: 'Quiet', slug: 'quiet-site', locales: ['en'], defaultLocale: 'en' })).status).toBe(201);
    const unknown = await send(emulator, 'GET', 'http://nobody-here.localhost/x', { headers: { ...BROWSER, 'accept-language': 'es-ES,es;q=0.9' } });
    const quietSite = await send(emulator, 'GET', 'http://quiet-site.localhost/x', { headers: { ...BROWSER, 'accept-language': 'es-ES,es;q=0.9' } });
    for (const res of [unknown, quietSite]) {
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const { document } = parseHTML(res.text);
      expect(document.querySelector('h1')!.textContent).toBe('Aquí no hay ningún sitio');
      expect(document.querySelector('a.home')!.getAttribute('href')).toBe('http://localhost/');
      expect(styleSrc(res.headers.get('content-security-policy'))).toEqual(["'self'", hashOf(stylesOf(res.text)[0]!)]);
      expect(res.text).not.toContain('Quiet');
    }
    expect(unknown.text.replace(/req_\w+/g, '')).toBe(quietSite.text.replace(/req_\w+/g, ''));
    const en = await send(emulator, 'GET', 'http://nobody-here.localhost/x', { headers: BROWSER });
    expect(parseHTML(en.text).document.querySelector('h1')!.textContent).toBe('No site here');
  });

  it('when the site cannot be drawn (its store failing), the neutral page still answers with the status', async () => {
    const theme = emulator.service.theme;
    const getTheme = theme.getTheme;
    theme.getTheme = () => Promise.reject(new Error('store out of reach'));
    try {
      const res = await site('/nope', BROWSER);
      expect(res.status).toBe(404);
      const { document } = parseHTML(res.text);
      // No site to read a language from: the visitor's (none asked: English).
      expect(document.querySelector('h1')!.textContent).toBe('Page not found');
      expect(document.querySelector('a.home')!.getAttribute('href')).toBe('/');
      expect(styleSrc(res.headers.get('content-security-policy'))).toEqual(["'self'", hashOf(stylesOf(res.text)[0]!)]);
    } finally {
      theme.getTheme = getTheme;
    }
  });
});
