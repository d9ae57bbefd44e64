import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../../src/platform/error-codes.js';
import { ERROR_DOCS } from '../../src/platform/error-docs.js';
import { BLOCKED_ADDRESS_CLASSES, INJECTABLE_INGEST_FAILURE as INGEST_CODE, LIMIT_FAILURES } from '../../src/platform/ingest-failures.js';
import { send } from '../support/client.js';
import { fileEmulator } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';

const emulator = await fileEmulator({ fixtures: 'demo', seed: 4 });
const CODES = Object.keys(ERROR_CODES) as ErrorCode[];
const DEMO_KEY = 'svc_test_DemoFullAccessKey000000000000001_0k1rIW';
const JSON_ACCEPT = { accept: 'application/json' };
const BROWSER_ACCEPT = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const openapi = (await send(emulator, 'GET', '/v1/openapi.json')).body;

function expectStrictPage(headers: Headers): void {
  const csp = headers.get('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).toContain("frame-ancestors 'none'");
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('x-request-id')).toMatch(/^req_/);
}

describe('the error reference (every problem type resolves)', () => {
  it('every code a fault makes the emulator answer has a type URL that resolves to its page, HTML and JSON', async () => {
    for (const code of CODES) {
      const fault = await send(emulator, 'POST', '/_emulator/faults', { body: { match: { method: 'GET', path: '/v1/me' }, code, times: 1 } });
      expect(fault.status, code).toBe(201);
      const problem = await send(emulator, 'GET', '/v1/me', { key: DEMO_KEY });
      expect(problem.body.code).toBe(code);
      const type = new URL(problem.body.type);
      expect(type.pathname).toBe(`/docs/errors/${code}`);

      const page = await send(emulator, 'GET', type.pathname, { headers: BROWSER_ACCEPT });
      expect(page.status, code).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.text).toContain(`<code>${code}</code> · HTTP ${ERROR_CODES[code].status}`);
      expect(page.text).toContain(`<title>${code} · svc-emulator</title>`);
      expect(page.text).toContain('<h2>What to do</h2>');
      expectStrictPage(page.headers);

      const json = await send(emulator, 'GET', type.pathname, { headers: JSON_ACCEPT });
      expect(json.headers.get('content-type')).toBe('application/json');
      expect(json.body).toMatchObject({ code, status: ERROR_CODES[code].status, title: ERROR_CODES[code].title, url: `/docs/errors/${code}` });
      expect(json.body.when.length, code).toBeGreaterThan(10);
      expect(json.body.fix.length, code).toBeGreaterThan(5);
      expectMatchesOpenApi(openapi, 'GET', '/docs/errors/{code}', 200, json.body);
    }
  });

  it('types the emulator answers on its own resolve too (no fault involved)', async () => {
    const answers = [
      await send(emulator, 'GET', '/v1/me'),
      await send(emulator, 'GET', '/v1/agents/agt_nope', { key: DEMO_KEY }),
      await send(emulator, 'POST', '/v1/agents', { key: DEMO_KEY, body: { name: '' } }),
      await send(emulator, 'GET', '/nowhere'),
    ];
    expect(answers.map((a) => a.body.code)).toEqual(['svc.api_key.invalid', 'svc.agent.not_found', 'svc.agent.invalid', 'svc.resource.not_found']);
    for (const answer of answers) {
      const page = await send(emulator, 'GET', new URL(answer.body.type).pathname);
      expect(page.status).toBe(200);
      expect(page.text).toContain(answer.body.title);
    }
  });

  it('says which codes this service never answers on its own', async () => {
    const page = await send(emulator, 'GET', '/docs/errors/svc.auth.csrf_failed');
    expect(page.text).toContain('The emulated API has no console sign-in or sessions.');
    expect(page.text).toContain('only when a fault injects it');
    const served = await send(emulator, 'GET', '/docs/errors/svc.agent.in_use', { headers: JSON_ACCEPT });
    expect(served.body.notServed).toBeUndefined();
    expect(served.body.fix).toContain('Point those pages at another agent');
  });

  it('the index lists every code and the failure codes of sources, as HTML and as JSON', async () => {
    const page = await send(emulator, 'GET', '/docs/errors');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expectStrictPage(page.headers);
    for (const code of CODES) expect(page.text).toContain(`<a href="/docs/errors/${code}"><code>${code}</code></a>`);
    expect(page.text).toContain('<code>fetch_blocked_address:&lt;class&gt;</code>');
    expect(page.text).not.toContain('<script');

    const json = await send(emulator, 'GET', '/docs/errors', { headers: JSON_ACCEPT });
    expect(json.body.data.map((d: { code: string }) => d.code)).toEqual(CODES);
    expectMatchesOpenApi(openapi, 'GET', '/docs/errors', 200, json.body);
    const failures = new Map<string, { when: string }>(json.body.ingestFailures.map((f: { code: string; when: string }) => [f.code, f]));
    // Every code a source can end with (what fault injection accepts, and the limits) has its text.
    const documented = (code: string) => failures.has(code) || failures.has(code.split(':')[0] === 'fetch_blocked_address' ? 'fetch_blocked_address' : code);
    const expected = [
      'unsupported_document',
      'ingest_failed',
      'fetch_timeout',
      'fetch_dns_failed',
      'fetch_response_too_large',
      ...BLOCKED_ADDRESS_CLASSES.map((c) => `fetch_blocked_address:${c}`),
    ];
    for (const code of expected) {
      expect(INGEST_CODE.test(code), code).toBe(true);
      expect(documented(code), code).toBe(true);
    }
    for (const code of Object.values(LIMIT_FAILURES)) expect(failures.has(code), code).toBe(true);
    expect(failures.get('fetch_blocked_address')!.when).toContain('`carrier_grade_nat`');
  });

  it('an unknown code is a 404 problem document, never an HTML page echoing the name', async () => {
    const res = await send(emulator, 'GET', `/docs/errors/${encodeURIComponent('<script>alert(1)</script>')}`, { headers: BROWSER_ACCEPT });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('svc.resource.not_found');
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body.detail).toBe('No problem code has that name.');
  });

  it('with docsUrl pointing elsewhere, problems point there and the pages still serve locally', async () => {
    const other = await fileEmulator({ docsUrl: 'https://docs.example.test/api/' });
    const problem = await send(other, 'GET', '/v1/me');
    expect(problem.body.type).toBe('https://docs.example.test/api/errors/svc.api_key.invalid');
    const local = await send(other, 'GET', '/docs/errors/svc.api_key.invalid');
    expect(local.status).toBe(200);
    expect(local.text).toContain('Invalid API key');
  });

  it('every registry code has reference text (the table is typed by code, so this holds at compile time too)', () => {
    expect(Object.keys(ERROR_DOCS).sort()).toEqual([...CODES].sort());
  });
});

describe('GET /', () => {
  it('tells a browser where to go, under the strict page headers, and shows no secret', async () => {
    const res = await send(emulator, 'GET', '/', { headers: { ...BROWSER_ACCEPT, host: '127.0.0.1:4010' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expectStrictPage(res.headers);
    expect(res.text).toContain('<a href="/v1/openapi.json">OpenAPI description</a>');
    expect(res.text).toContain('<a href="/_emulator/health">Health</a>');
    expect(res.text).toContain('<a href="/docs/errors">Error reference</a>');
    expect(res.text).toContain('<a href="http://cafe-aurora.localhost:4010/">http://cafe-aurora.localhost:4010/</a>');
    expect(res.text).not.toContain('svc_test_');
    expect(res.text).not.toContain('ws_');
  });

  it('answers JSON on Accept: application/json, matching its OpenAPI entry', async () => {
    const res = await send(emulator, 'GET', '/', { headers: { ...JSON_ACCEPT, host: 'localhost:4010' } });
    expect(res.body).toEqual({
      name: 'svc-emulator',
      version: '0.1.0',
      links: { ui: '/_emulator/ui', openapi: '/v1/openapi.json', health: '/_emulator/health', errors: '/docs/errors' },
      sites: { address: 'http://<slug>.localhost:4010/', published: [{ slug: 'cafe-aurora', url: 'http://cafe-aurora.localhost:4010/' }], more: false },
    });
    expectMatchesOpenApi(openapi, 'GET', '/', 200, res.body);
    const op = openapi.paths['/'].get;
    expect(Object.keys(op.responses['200'].content)).toEqual(['application/json', 'text/html']);
    expect(op.security).toEqual([]);
  });

  it('a Host header cannot put markup in the page', async () => {
    const res = await send(emulator, 'GET', '/', { headers: { host: '"><img src=x onerror=alert(1)>:4010' } });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('<img');
    expect(res.text).not.toContain('onerror');
  });

  it('links the emulator UI, which answers there', async () => {
    expect((await send(emulator, 'GET', '/', { headers: JSON_ACCEPT })).body.links.ui).toBe('/_emulator/ui');
    expect((await send(emulator, 'GET', '/')).text).toContain('<a href="/_emulator/ui">Emulator UI</a>');
    expect((await send(emulator, 'GET', '/_emulator/ui')).status).toBe(200);
  });

  it('with an admin token, the home page and the error reference still need none', async () => {
    const guarded = await fileEmulator({ adminToken: 't0k' });
    expect((await send(guarded, 'GET', '/')).status).toBe(200);
    expect((await send(guarded, 'GET', '/docs/errors/svc.auth.unauthorized')).status).toBe(200);
    expect((await send(guarded, 'GET', '/_emulator/health')).body).toEqual({ status: 'ok', version: '0.1.0' });
    expect((await send(guarded, 'GET', '/_emulator/state')).status).toBe(401);
  });
});
