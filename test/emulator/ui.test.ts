import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { INJECTABLE_INGEST_FAILURE as INGEST_CODE } from '../../src/platform/ingest-failures.js';
import { INGEST_CHOICES } from '../../emulator/ui/page.js';
import { UI_SECTIONS } from '../../emulator/ui/ui-paths.js';
import { client, send, walk } from '../support/client.js';
import { fileEmulator, quiet, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';

const emulator = await fileEmulator({ seed: 13, fixtures: 'demo' });
const control = client(emulator);
const doc = (await control.get('/v1/openapi.json')).body;
const demoId = emulator.fixtureKeys[0]!.workspaceId;
const demo = client(emulator, emulator.fixtureKeys.find((k) => k.scopes.length === 13)!.secret);

describe('GET /_emulator/workspaces', () => {
  it('lists every workspace with its settings and the credits it has left (as /v1/usage counts them), oldest first', async () => {
    const made = await workspace(emulator, { credits: 3 });
    const agentId = (await made.api.post('/v1/agents', { name: 'Lola', identity: { businessName: 'Bikes Lola' } })).body.id;
    expect((await made.api.post(`/v1/agents/${agentId}/chat`, { message: 'Hello' })).status).toBe(200);
    const res = await control.get('/_emulator/workspaces');
    expect(res.status).toBe(200);
    const ids = res.body.data.map((w: { id: string }) => w.id);
    expect(ids[0]).toBe(demoId);
    expect(ids.at(-1)).toBe(made.workspaceId);
    const { messages, ...settings } = res.body.data[0];
    expect(settings).toEqual((await control.get(`/_emulator/workspaces/${demoId}`)).body);
    expect(messages).toEqual((await demo.get('/v1/usage')).body.messages);
    // The list and the workspace's resources say the same.
    const last = res.body.data.at(-1);
    expect(last.messages).toEqual({ used: 1, limit: 3, remaining: 2 });
    expect(last.messages).toEqual((await control.get(`/_emulator/workspaces/${made.workspaceId}/resources`)).body.credits);
    expectMatchesOpenApi(doc, 'GET', '/_emulator/workspaces', 200, res.body);
  });
});

describe('GET /_emulator/fixture-keys', () => {
  it('answers the fixtures’ keys still active, with the secrets the CLI prints, and drops a revoked one', async () => {
    const fresh = await createEmulator({ fixtures: 'demo', seed: 21, log: quiet });
    try {
      const keys = client(fresh);
      const res = await keys.get('/_emulator/fixture-keys');
      expect(res.status).toBe(200);
      expectMatchesOpenApi(doc, 'GET', '/_emulator/fixture-keys', 200, res.body);
      expect(res.body.data.map((k: { name: string; secret: string }) => [k.name, k.secret])).toEqual(fresh.fixtureKeys.map((k) => [k.name, k.secret]));
      const readOnly = res.body.data.find((k: { name: string }) => k.name === 'demo-read-only');
      expect(readOnly).toMatchObject({ workspaceId: fresh.fixtureKeys[0]!.workspaceId, prefix: readOnly.secret.slice(0, 12) });
      expect((await keys.delete(`/workspaces/${readOnly.workspaceId}/keys/${readOnly.id}`)).status).toBe(200);
      expect((await keys.get('/_emulator/fixture-keys')).body.data.map((k: { name: string }) => k.name)).toEqual(['demo-full']);
      // A workspace made by the control plane is not a fixture's.
      await workspace(fresh);
      expect((await keys.get('/_emulator/fixture-keys')).body.data).toHaveLength(1);
      await keys.post('/_emulator/reset');
      expect((await keys.get('/_emulator/fixture-keys')).body.data).toHaveLength(2);
    } finally {
      await fresh.close();
    }
    const none = await createEmulator({ fixtures: 'none', log: quiet });
    try {
      expect((await client(none).get('/_emulator/fixture-keys')).body).toEqual({ data: [] });
    } finally {
      await none.close();
    }
  });
});

describe('POST /_emulator/workspaces/keyless', () => {
  it('creates a workspace with no key; keys are minted through the console route', async () => {
    const res = await control.post('/_emulator/workspaces/keyless', { name: 'From the UI', credits: 7 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'From the UI', credits: 7 });
    expect(res.text).not.toMatch(/secret|svc_(test|live)_/);
    expectMatchesOpenApi(doc, 'POST', '/_emulator/workspaces/keyless', 201, res.body);
    expect((await control.get(`/workspaces/${res.body.id}/keys`)).body.data).toEqual([]);
    const key = await control.post(`/workspaces/${res.body.id}/keys`, { name: 'app', scopes: ['landings:read'] });
    expect((await client(emulator, key.body.secret).get('/v1/me')).body.workspaceId).toBe(res.body.id);
  });

  it('refuses scopes (no key is made) and bad fields with 400, creating nothing', async () => {
    const before = (await control.get('/_emulator/workspaces')).body.data.length;
    for (const body of [{ scopes: ['landings:read'] }, { name: '' }, { credits: -1 }, { colour: 'red' }]) {
      const res = await control.post('/_emulator/workspaces/keyless', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('svc.request.validation_failed');
      expect(res.body.errors[0].field).toBe(Object.keys(body)[0]);
    }
    expect((await control.get('/_emulator/workspaces')).body.data.length).toBe(before);
  });
});

describe('GET /_emulator/workspaces/{id}/resources', () => {
  it('answers what the workspace itself lists through /v1, and its keys without secret or hash', async () => {
    const res = await control.get(`/_emulator/workspaces/${demoId}/resources`);
    expect(res.status).toBe(200);
    expectMatchesOpenApi(doc, 'GET', '/_emulator/workspaces/{workspaceId}/resources', 200, res.body);
    const r = res.body;
    expect(r.workspace.id).toBe(demoId);
    expect(r.agents.data).toEqual(await walk(demo, '/v1/agents'));
    expect(r.sources.data).toEqual(await walk(demo, '/v1/knowledge/sources'));
    expect(r.sources.data.length).toBeGreaterThan(0);
    expect(r.sources.data.every((s: { status: string }) => s.status === 'ready')).toBe(true);
    expect(r.projects.data).toEqual(await walk(demo, '/v1/projects'));
    const pages = (await Promise.all(r.projects.data.map((p: { id: string }) => walk(demo, `/v1/projects/${p.id}/pages`)))).flat();
    expect(r.pages.data.map((p: { id: string }) => p.id).sort()).toEqual(pages.map((p) => p.id).sort());
    expect(r.keys.data.map((k: { prefix: string }) => k.prefix).sort()).toEqual(emulator.fixtureKeys.map((k) => k.secret.slice(0, 12)).sort());
    for (const key of r.keys.data) expect(Object.keys(key).sort()).toEqual(['createdAt', 'env', 'expiresAt', 'id', 'name', 'prefix', 'revokedAt', 'scopes']);
    for (const key of emulator.fixtureKeys) expect(res.text).not.toContain(key.secret);
    expect(r.credits).toEqual({ used: 0, limit: 1000, remaining: 1000 });
  });

  it('shows a new source pending, then ready once ingested, and its assets with URLs on the caller’s origin', async () => {
    const ws = await workspace(emulator);
    const src = await ws.api.post('/v1/knowledge/text', { title: 'Hours', text: 'We open at nine.' });
    expect(src.status).toBe(202);
    const pending = (await control.get(`/_emulator/workspaces/${ws.workspaceId}/resources`)).body.sources.data[0];
    expect(pending.status === 'pending' || pending.status === 'ready').toBe(true);
    const png = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'assets', 'image.png'));
    const form = new FormData();
    form.set('file', new File([png], 'dot.png', { type: 'image/png' }));
    form.set('key', 'dot');
    expect((await ws.api.post('/v1/assets', form)).status).toBe(201);
    await emulator.drain();
    const res = await send(emulator, 'GET', `http://127.0.0.1:4010/_emulator/workspaces/${ws.workspaceId}/resources`);
    expect(res.body.sources.data).toMatchObject([{ id: src.body.id, status: 'ready', title: 'Hours' }]);
    expect(res.body.assets.data).toMatchObject([{ key: 'dot', kind: 'image' }]);
    expect(res.body.assets.data[0].url).toMatch(/^http:\/\/127\.0\.0\.1:4010\/files\//);
    expect(res.body.keys.data).toHaveLength(1);
  });

  it("gives a document page the heading its hosted page shows (its body's first <h1>), following an edit (D-1202)", async () => {
    const pageOf = async (path: string) =>
      (
        (await control.get(`/_emulator/workspaces/${demoId}/resources`)).body.pages.data as {
          path: string;
          kind: string;
          bodyHeading: string | null;
          id: string;
          body: Record<string, string>;
        }[]
      ).find((p) => p.path === path)!;
    const menu = await pageOf('/menu');
    expect(menu.kind).toBe('document');
    // The page's default language is Spanish: its body's "# Carta".
    expect(menu.bodyHeading).toBe('Carta');
    const site = parseHTML((await send(emulator, 'GET', 'http://cafe-aurora.localhost/menu')).text).document;
    expect(site.querySelector('main h1')?.textContent).toBe(menu.bodyHeading);
    const home = await pageOf('/');
    expect(home.kind).toBe('agent');
    expect(home.bodyHeading).toBeNull();
    const edited = await demo.patch(`/v1/pages/${menu.id}`, { body: { es: 'Precios primero.\n\n# Nuestras *bebidas* &amp; precios\n\n# Después' } });
    expect(edited.status).toBe(200);
    expect((await pageOf('/menu')).bodyHeading).toBe('Nuestras bebidas & precios');
    expect((await demo.patch(`/v1/pages/${menu.id}`, { body: { es: 'Sin título.' } })).status).toBe(200);
    expect((await pageOf('/menu')).bodyHeading).toBeNull();
    expect((await demo.patch(`/v1/pages/${menu.id}`, { body: menu.body })).status).toBe(200);
  });

  it('answers the newest 100 of each kind, or up to `limit` (at most 1000) when asked: the UI’s "Show more"', async () => {
    const ws = await workspace(emulator);
    expect((await control.patch(`/_emulator/workspaces/${ws.workspaceId}`, { rateLimit: { limit: 1000 }, dailyActivityCap: null })).status).toBe(200);
    const ids: string[] = [];
    for (let i = 0; i < 103; i++) ids.push((await ws.api.post('/v1/knowledge/text', { title: `Note ${i}`, text: `Note number ${i}.` })).body.id);
    const at = (query: string) => control.get(`/_emulator/workspaces/${ws.workspaceId}/resources${query}`);
    const first = (await at('')).body.sources;
    expect(first.data).toHaveLength(100);
    expect(first.hasMore).toBe(true);
    expect(first.data.map((s: { id: string }) => s.id)).toEqual(ids.slice(3).reverse());
    const more = await at('?limit=200');
    expectMatchesOpenApi(doc, 'GET', '/_emulator/workspaces/{workspaceId}/resources', 200, more.body);
    expect(more.body.sources.data.map((s: { id: string }) => s.id)).toEqual([...ids].reverse());
    expect(more.body.sources.hasMore).toBe(false);
    expect((await at('?limit=103')).body.sources.hasMore).toBe(false);
    expect((await at('?limit=102')).body.sources.hasMore).toBe(true);
    for (const bad of ['0', '1001', 'ten']) {
      const res = await at(`?limit=${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('svc.request.validation_failed');
      expect(res.body.errors[0].field).toBe('limit');
    }
    // Leaves no job behind for the queue's tests.
    await emulator.drain();
  });

  it('answers the newest pages of every project, those of projects past `limit` included', async () => {
    const ws = await workspace(emulator);
    const projects: string[] = [];
    for (const name of ['One', 'Two', 'Three']) projects.push((await ws.api.post('/v1/projects', { name })).body.id);
    // The first project's page is the newest, though its project is the oldest, past `limit=2`.
    const made: string[] = [];
    for (const [i, project] of [projects[2], projects[1], projects[1], projects[0]].entries()) {
      const res = await ws.api.post(`/v1/projects/${project}/pages`, { name: `P${i}`, kind: 'document', path: `/p${i}` });
      expect(res.status).toBe(201);
      made.push(res.body.id);
    }
    const at = async (query: string) => (await control.get(`/_emulator/workspaces/${ws.workspaceId}/resources${query}`)).body;
    const two = await at('?limit=2');
    expect(two.projects.data.map((p: { id: string }) => p.id)).toEqual([projects[2], projects[1]]);
    expect(two.pages.data.map((p: { id: string }) => p.id)).toEqual([made[3], made[2]]);
    expect(two.pages.hasMore).toBe(true);
    const all = await at('?limit=4');
    expect(all.pages.data.map((p: { id: string }) => p.id)).toEqual([...made].reverse());
    expect(all.pages.hasMore).toBe(false);
  });

  it('answers 404 svc.tenant.not_found for an unknown workspace', async () => {
    const res = await control.get('/_emulator/workspaces/ws_nope/resources');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('svc.tenant.not_found');
  });
});

describe('GET /_emulator/queue', () => {
  it('shows scheduled jobs (not due) until the clock brings them, by run time', async () => {
    const iso = (await control.get('/_emulator/clock')).body.now;
    const res = await control.get('/_emulator/queue');
    expect(res.status).toBe(200);
    expectMatchesOpenApi(doc, 'GET', '/_emulator/queue', 200, res.body);
    // The demo's URL source is re-crawled on a schedule on the emulated clock.
    const recrawl = res.body.data.find((j: { kind: string }) => j.kind === 'knowledge.recrawl');
    expect(recrawl).toMatchObject({ workspaceId: demoId, status: 'queued', due: false, attempts: 0, lastError: null });
    expect(recrawl.runAt > iso).toBe(true);
    expect(res.body.counts.queued).toBe(res.body.data.filter((j: { status: string }) => j.status === 'queued').length);
    const runAts = res.body.data.map((j: { runAt: string }) => j.runAt);
    expect(runAts).toEqual([...runAts].sort());
    await control.post('/_emulator/clock', { now: recrawl.runAt });
    const after = (await control.get('/_emulator/queue')).body.data;
    expect(after.find((j: { id: string }) => j.id === recrawl.id)).toBeUndefined();
  });

  it('takes limit 1..1000 and says when there are more', async () => {
    // Each ready URL source waits for its next crawl in the queue.
    const ws = await workspace(emulator);
    const url = (await control.get('/_emulator/web')).body.pages[0].url;
    for (let i = 0; i < 2; i++) expect((await ws.api.post('/v1/knowledge/urls', { url, syncTtlMinutes: 60 })).status).toBe(202);
    await emulator.drain();
    const all = (await control.get('/_emulator/queue')).body;
    expect(all.data.filter((j: { workspaceId: string }) => j.workspaceId === ws.workspaceId)).toHaveLength(2);
    const one = await control.get('/_emulator/queue?limit=1');
    expect(one.status).toBe(200);
    expect(one.body.data.length).toBeLessThanOrEqual(1);
    expect(one.body.hasMore).toBe(one.body.counts.queued + one.body.counts.running + one.body.counts.failed > 1);
    for (const limit of ['0', '1001', 'x', '']) {
      const res = await control.get(`/_emulator/queue?limit=${limit}`);
      expect(res.status, limit).toBe(400);
      expect(res.body.errors[0].field).toBe('limit');
    }
  });
});

describe('POST /_emulator/workspaces/{id}/agents/{agentId}/chat', () => {
  const agentOf = async (api: ReturnType<typeof client>) =>
    (await api.post('/v1/agents', { name: 'Lola', identity: { businessName: 'Bikes Lola' } })).body.id as string;

  it('answers a turn as the workspace (JSON or streamed), spending its credit like /v1', async () => {
    const ws = await workspace(emulator, { credits: 3 });
    const agentId = await agentOf(ws.api);
    await ws.api.post('/v1/knowledge/text', { title: 'Rentals', text: 'Electric bikes cost 30 euros a day.', agentId });
    await emulator.drain();
    const path = `/_emulator/workspaces/${ws.workspaceId}/agents/${agentId}/chat`;
    const json = await control.post(path, { message: 'How much is an electric bike?' });
    expect(json.status).toBe(200);
    expectMatchesOpenApi(doc, 'POST', '/_emulator/workspaces/{workspaceId}/agents/{agentId}/chat', 200, json.body);
    expect(json.body.reply).toMatch(/30 euros/);
    const streamed = await send(emulator, 'POST', path, {
      body: { message: 'And per week?', conversationId: json.body.conversationId },
      headers: { accept: 'text/event-stream' },
    });
    expect(streamed.headers.get('content-type')).toContain('text/event-stream');
    expect(streamed.text).toMatch(/^event: start\ndata: \{"conversationId":"cnv_/);
    expect(streamed.text).toContain('event: done');
    const usage = (await ws.api.get('/v1/usage')).body;
    expect(usage.messages).toMatchObject({ used: 2, limit: 3, remaining: 1 });
    // The conversation is the workspace's own: /v1 continues it.
    expect((await ws.api.post(`/v1/agents/${agentId}/chat`, { message: 'Thanks', conversationId: json.body.conversationId })).status).toBe(200);
    const spent = await control.post(path, { message: 'Once more' });
    expect(spent.status).toBe(402);
    expect(spent.body.code).toBe('svc.usage.quota_exhausted');
  });

  it('refuses what /v1 refuses, and an unknown workspace or another workspace’s agent', async () => {
    const ws = await workspace(emulator);
    const other = await workspace(emulator);
    const agentId = await agentOf(ws.api);
    const path = `/_emulator/workspaces/${ws.workspaceId}/agents/${agentId}/chat`;
    const cases: [string, unknown, number, string][] = [
      [path, { message: '   ' }, 400, 'svc.request.validation_failed'],
      [path, { message: 'Hi', agentId }, 400, 'svc.chat.agent_scope_conflict'],
      [path, { message: 'Hi', conversationId: 'cnv_nope' }, 404, 'svc.resource.not_found'],
      [`/_emulator/workspaces/ws_nope/agents/${agentId}/chat`, { message: 'Hi' }, 404, 'svc.tenant.not_found'],
      [`/_emulator/workspaces/${other.workspaceId}/agents/${agentId}/chat`, { message: 'Hi' }, 404, 'svc.agent.not_found'],
    ];
    for (const [target, body, status, code] of cases) {
      const res = await control.post(target, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.code).toBe(code);
    }
    expect((await ws.api.get('/v1/usage')).body.messages.used).toBe(0);
  });
});

describe('GET /_emulator/ui', () => {
  it('serves the page with the strict CSP, nosniff and no framing; nothing inline', async () => {
    const res = await send(emulator, 'GET', '/_emulator/ui');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!.split('; ');
    for (const directive of [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "img-src 'self' data:",
      "frame-ancestors 'none'",
    ]) {
      expect(csp).toContain(directive);
    }
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const { document } = parseHTML(res.text);
    expect(document.querySelectorAll('style, [style]').length).toBe(0);
    for (const script of document.querySelectorAll('script')) expect(script.getAttribute('src')).toMatch(/^\/_emulator\/ui\//);
    const inlineHandlers = [...document.querySelectorAll('*')].flatMap((el) => [...el.attributes].map((a) => a.name)).filter((n) => n.startsWith('on'));
    expect(inlineHandlers).toEqual([]);
    // Every section is there, server-rendered, the first open; the navigation links each.
    const sections = [...document.querySelectorAll('main > section')];
    expect(sections.map((el) => el.id)).toEqual(UI_SECTIONS.map((s) => s.id));
    expect(sections.filter((el) => !el.hasAttribute('hidden')).map((el) => el.id)).toEqual(['workspaces']);
    expect([...document.querySelectorAll('nav.side li a')].map((a) => a.getAttribute('href'))).toEqual(UI_SECTIONS.map((s) => `/_emulator/ui/${s.id}`));
    expect(document.querySelector('nav.side a[aria-current="page"]')!.getAttribute('href')).toBe('/_emulator/ui/workspaces');
    const codes = [...document.querySelectorAll('#fault-add select[name="code"] option')].map((o) => o.getAttribute('value'));
    expect(codes).toContain('svc.service.unavailable');
  });

  it('serves the page at each section’s address with that section open (a reload or a deep link lands there); nothing else', async () => {
    for (const { id, label } of UI_SECTIONS) {
      const res = await send(emulator, 'GET', `/_emulator/ui/${id}?workspace=${demoId}`);
      expect(res.status, id).toBe(200);
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      const { document } = parseHTML(res.text);
      expect([...document.querySelectorAll('main > section')].filter((el) => !el.hasAttribute('hidden')).map((el) => el.id)).toEqual([id]);
      expect(document.querySelector('nav.side a[aria-current="page"]')!.getAttribute('href')).toBe(`/_emulator/ui/${id}`);
      expect(document.querySelector('title')!.textContent).toBe(`${label} · svc-emulator`);
    }
    for (const path of ['/_emulator/ui/nope', '/_emulator/ui/requests/x', '/_emulator/ui/Requests'])
      expect((await send(emulator, 'GET', path)).status, path).toBe(404);
  });

  it('serves its files with their types and nosniff; every module it imports is served', async () => {
    const page = parseHTML((await send(emulator, 'GET', '/_emulator/ui')).text).document;
    const queue = [...page.querySelectorAll('script[src], link[href]')].map((el) => el.getAttribute('src') ?? el.getAttribute('href')!);
    const seen = new Set<string>();
    while (queue.length) {
      const path = queue.shift()!;
      if (seen.has(path)) continue;
      seen.add(path);
      const res = await send(emulator, 'GET', path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      const type = res.headers.get('content-type')!;
      expect(type, path).toMatch(path.endsWith('.js') ? /^text\/javascript/ : path.endsWith('.css') ? /^text\/css/ : /^image\/svg\+xml/);
      if (path.endsWith('.js')) {
        for (const [, spec] of res.text.matchAll(/from ['"](\.{1,2}\/[^'"]+)['"]/g)) queue.push(new URL(spec!, `http://x${path}`).pathname);
      }
    }
    expect([...seen]).toEqual(
      expect.arrayContaining([
        '/_emulator/ui/ui.js',
        '/_emulator/ui/api.js',
        '/_emulator/ui/router.js',
        '/_emulator/ui/keys.js',
        '/_emulator/ui/vendor/eventsource-parser/stream.js',
        '/_emulator/ui/vendor/eventsource-parser/index.js',
      ]),
    );
    const etag = (await send(emulator, 'GET', '/_emulator/ui/ui.js')).headers.get('etag')!;
    expect((await send(emulator, 'GET', '/_emulator/ui/ui.js', { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await send(emulator, 'GET', '/_emulator/ui/nope.js')).status).toBe(404);
    // Files are looked up by name among the few the UI has: no path reaches the disk.
    expect((await send(emulator, 'GET', '/_emulator/ui/vendor%2F..%2F..%2F..%2Fpackage.json')).status).toBe(404);
  });

  it('offers only ingestion failures the control plane takes', () => {
    for (const code of INGEST_CHOICES) expect(INGEST_CODE.test(code), code).toBe(true);
  });

  it('lists queued ingestion failures in the Faults table beside the request faults (D-1093)', async () => {
    const fault = (await control.post('/_emulator/faults', { match: { method: 'GET', path: '/v1/nothing-here' }, status: 503, times: 2 })).body;
    const queued = (await control.post('/_emulator/faults', { ingest: 'fetch_timeout', times: 3 })).body;
    const listed = (await control.get('/_emulator/faults')).body.data;
    await control.delete('/_emulator/faults');
    // The page's own module, run on the served page (linkedom stands in for the browser).
    const { document, Node } = parseHTML((await send(emulator, 'GET', '/_emulator/ui/faults')).text);
    Object.assign(globalThis, { document, Node });
    try {
      const { renderFaults } = await import('../../emulator/ui/assets/faults.js' as string);
      renderFaults(listed);
      const rows = [...document.querySelectorAll('[data-rows="faults"] tr')].map((tr) => [
        tr.getAttribute('data-id'),
        ...[...tr.querySelectorAll('td')].map((td) => td.textContent),
      ]);
      expect(rows).toEqual([
        [fault.id, 'GET', '/v1/nothing-here', '503 svc.service.unavailable', '2', 'Remove'],
        [queued.id, '—', '(the next ingestions)', 'fails with fetch_timeout', '3', 'Remove'],
      ]);
      // Each row's Remove names its entry (D-1196).
      expect(
        [...document.querySelectorAll('[data-rows="faults"] button[data-remove]')].map((b) => [b.getAttribute('data-remove'), b.getAttribute('aria-label')]),
      ).toEqual([
        [fault.id, 'Remove fault on GET /v1/nothing-here (503 svc.service.unavailable)'],
        [queued.id, 'Remove queued ingestion failures (fetch_timeout)'],
      ]);
    } finally {
      for (const name of ['document', 'Node']) delete (globalThis as Record<string, unknown>)[name];
    }
  });
});

describe('the UI behind the guard', () => {
  it('with an admin token: the page and its files load without it (they hold no data); every data route asks for it', async () => {
    const guarded = await createEmulator({ adminToken: 'hunter2', log: quiet });
    try {
      for (const path of ['/_emulator/ui', '/_emulator/ui/requests', '/_emulator/ui/ui.js', '/_emulator/ui/ui.css']) {
        expect((await send(guarded, 'GET', path)).status, path).toBe(200);
      }
      expect((await send(guarded, 'HEAD', '/_emulator/ui')).status).toBe(200);
      // Not a file: the token is needed even under the UI's path for anything but GET/HEAD.
      expect((await send(guarded, 'POST', '/_emulator/ui', { body: {} })).status).toBe(401);
      for (const path of [
        '/_emulator/workspaces',
        '/_emulator/queue',
        '/_emulator/requests',
        '/_emulator/faults',
        '/_emulator/clock',
        '/_emulator/state',
        '/_emulator/fixture-keys',
      ]) {
        const res = await send(guarded, 'GET', path);
        expect(res.status, path).toBe(401);
        expect((await send(guarded, 'GET', path, { headers: { authorization: 'Bearer hunter2' } })).status, path).toBe(200);
      }
      expect((await send(guarded, 'POST', '/_emulator/workspaces/keyless', { body: {} })).status).toBe(401);
    } finally {
      await guarded.close();
    }
  });

  it('the page is refused to a foreign Host (DNS rebinding) and to another site’s page', async () => {
    expect((await send(emulator, 'GET', '/_emulator/ui', { headers: { host: 'rebind.attacker.example' } })).status).toBe(403);
    expect((await send(emulator, 'GET', '/_emulator/ui/ui.js', { headers: { host: 'rebind.attacker.example' } })).status).toBe(403);
    expect((await send(emulator, 'GET', '/_emulator/ui', { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    expect((await send(emulator, 'GET', '/_emulator/ui', { headers: { 'sec-fetch-site': 'none' } })).status).toBe(200);
  });

  it('is not served on a site’s host, which answers it as any path it does not have; every answer has a request id', async () => {
    for (const path of ['/_emulator/ui', '/_emulator/ui/ui.js', '/_emulator/ui/knowledge']) {
      const own = await send(emulator, 'GET', path);
      expect(own.status, path).toBe(200);
      expect(own.headers.get('x-request-id'), path).toMatch(/^req_/);
      for (const host of ['cafe-aurora.localhost', 'nobody-here.localhost']) {
        const onSite = await send(emulator, 'GET', `http://${host}${path}`);
        expect(onSite.status, `${host}${path}`).toBe(404);
        expect(onSite.body.code).toBe('svc.host.not_found');
        expect(onSite.headers.get('x-request-id')).toMatch(/^req_/);
      }
    }
    expect((await send(emulator, 'GET', '/_emulator/ui/nope.js')).headers.get('x-request-id')).toMatch(/^req_/);
  });
});
