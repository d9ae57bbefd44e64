import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { client, send } from '../support/client.js';
import { fileEmulator, quiet, workspace } from '../support/emulator.js';

const emulator = await fileEmulator({ seed: 41, allowedHosts: ['emulator', '.lan.test'] });
const ws = await workspace(emulator);
const keys = `/workspaces/${ws.workspaceId}/keys`;

/** Every way a web page or a rebound name could reach the control plane and console routes. */
const GUARDED: [string, string][] = [
  ['POST', '/_emulator/reset'],
  ['POST', '/_emulator/workspaces'],
  ['GET', '/_emulator/state'],
  ['GET', '/_emulator/ui'],
  ['GET', keys],
  ['POST', keys],
];

async function stateText(): Promise<string> {
  return JSON.stringify(await emulator.exportState());
}

describe('the Host check (DNS rebinding)', () => {
  it('refuses a foreign Host with 403 svc.auth.forbidden naming the host, and changes nothing', async () => {
    const before = await stateText();
    for (const [method, path] of GUARDED) {
      const res = await send(emulator, method, path, {
        headers: { host: 'rebind.attacker.example:4010' },
        body: method === 'POST' ? { name: 'x', scopes: ['landings:read'] } : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.code).toBe('svc.auth.forbidden');
      expect(res.body.detail).toContain('rebind.attacker.example:4010');
      expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
    }
    // The URL's own host counts too (an absolute-form request line).
    expect((await send(emulator, 'GET', 'http://rebind.attacker.example/_emulator/state')).status).toBe(403);
    expect(await stateText()).toBe(before);
  });

  it('console routes answer the refusal as plain JSON, like their other problems', async () => {
    const res = await send(emulator, 'GET', keys, { headers: { host: 'evil.example' } });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toBe('application/json');
  });

  it('answers on localhost, *.localhost, 127.0.0.0/8, [::1], IP addresses and the allowed hosts', async () => {
    for (const host of [
      'localhost',
      'localhost:4010',
      'LOCALHOST',
      'app.localhost:4010',
      '127.0.0.1:4010',
      '127.8.9.10',
      '[::1]:4010',
      '192.168.1.20:4010',
      'emulator:4010',
      'lan.test',
      'box.lan.test:8080',
    ]) {
      const res = await send(emulator, 'GET', '/_emulator/clock', { headers: { host } });
      expect(res.status, host).toBe(200);
    }
    for (const host of ['emulator.example', 'xlan.test', 'localhost.attacker.example', '127.0.0.1.nip.io', 'evil@localhost', '']) {
      const res = await send(emulator, 'GET', '/_emulator/clock', { headers: { host } });
      expect(res.status, host).toBe(403);
    }
  });

  it('health answers on any host (readiness probes), and says only status and version', async () => {
    const res = await send(emulator, 'GET', '/_emulator/health', { headers: { host: 'emulator-svc.default.svc.cluster.local' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', version: '0.1.0' });
  });

  it('/v1, signed file URLs and hosted sites do not look at the Host', async () => {
    expect((await send(emulator, 'GET', '/v1/me', { key: ws.key, headers: { host: 'api.example.test' } })).status).toBe(200);
    const form = new FormData();
    form.set(
      'file',
      new File([Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64')], 'p.png', {
        type: 'image/png',
      }),
    );
    const asset = await send(emulator, 'POST', 'http://cdn.example.test/v1/assets', { key: ws.key, body: form });
    expect(asset.status).toBe(201);
    const file = await send(emulator, 'GET', asset.body.url, { headers: { 'sec-fetch-site': 'cross-site', origin: 'https://elsewhere.example' } });
    expect(file.status).toBe(200);
    // An unknown site answers as a site (404 svc.host.not_found), not as a refused control plane.
    expect((await send(emulator, 'GET', 'http://nobody-here.localhost/')).body.code).toBe('svc.host.not_found');
  });
});

describe('the browser check (cross-origin pages)', () => {
  it('refuses Sec-Fetch-Site cross-site and same-site (a hosted site on <slug>.localhost is same-site)', async () => {
    const before = await stateText();
    for (const site of ['cross-site', 'same-site']) {
      for (const [method, path] of GUARDED) {
        const res = await send(emulator, method, path, { headers: { 'sec-fetch-site': site, 'sec-fetch-mode': 'no-cors' } });
        expect(res.status, `${site} ${method} ${path}`).toBe(403);
        expect(res.body.code).toBe('svc.auth.forbidden');
        expect(res.body.detail).toContain(`Sec-Fetch-Site: ${site}`);
      }
    }
    // Health says nothing worth stealing, but a page of another origin has no business there either.
    expect((await send(emulator, 'GET', '/_emulator/health', { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    expect(await stateText()).toBe(before);
  });

  it('refuses a simple cross-origin POST by its Origin, even without Sec-Fetch-Site (older browsers)', async () => {
    const before = await stateText();
    for (const origin of ['http://evil.example', 'http://cafe-aurora.localhost', 'http://localhost:3000', 'null', 'https://localhost.evil.example']) {
      const res = await send(emulator, 'POST', '/_emulator/reset', { headers: { origin, 'content-type': 'text/plain' }, body: 'x' });
      expect(res.status, origin).toBe(403);
      expect(res.body.detail).toContain(`Origin: ${origin}`);
      const created = await send(emulator, 'POST', '/_emulator/workspaces', { headers: { origin, host: 'localhost' } });
      expect(created.status, origin).toBe(403);
    }
    expect(await stateText()).toBe(before);
  });

  it("accepts the emulator's own origin, same-origin and typed-in (none) requests, and non-browser clients", async () => {
    const own = await send(emulator, 'GET', '/_emulator/clock', {
      headers: { host: 'localhost:4010', origin: 'http://localhost:4010', 'sec-fetch-site': 'same-origin' },
    });
    expect(own.status).toBe(200);
    expect((await send(emulator, 'GET', '/_emulator/clock', { headers: { 'sec-fetch-site': 'none' } })).status).toBe(200);
    // No browser headers at all: SDKs, curl, tests, in-process `emulator.fetch`.
    expect((await client(emulator).get('/_emulator/clock')).status).toBe(200);
    expect((await emulator.fetch(new Request('http://localhost/_emulator/clock'))).status).toBe(200);
    // The same origin on another port is another origin.
    expect((await send(emulator, 'GET', '/_emulator/clock', { headers: { host: 'localhost:4010', origin: 'http://localhost:4011' } })).status).toBe(403);
  });

  it('/v1 keeps taking browser requests from any origin (its key is the guard)', async () => {
    const res = await send(emulator, 'GET', '/v1/me', { key: ws.key, headers: { origin: 'https://app.example', 'sec-fetch-site': 'cross-site' } });
    expect(res.status).toBe(200);
  });
});

describe('allowedHosts option', () => {
  it("'all' switches the Host check off, but never the browser check", async () => {
    const open = await createEmulator({ allowedHosts: 'all', log: quiet });
    try {
      expect((await send(open, 'GET', '/_emulator/clock', { headers: { host: 'anything.example' } })).status).toBe(200);
      expect((await send(open, 'POST', '/_emulator/reset', { headers: { origin: 'http://evil.example' } })).status).toBe(403);
    } finally {
      await open.close();
    }
  });

  it('refuses a value that is not a host name', async () => {
    for (const bad of ['emulator:4010', 'http://emulator', '*.example.test', 'a/b']) {
      await expect(createEmulator({ allowedHosts: [bad], log: quiet }), bad).rejects.toThrow(/allowedHosts: not a host name/);
    }
  });
});

describe('admin token', () => {
  it('guards every route but health, compares whole tokens of any length, and /v1 is unaffected', async () => {
    const guarded = await createEmulator({ adminToken: 'hunter2', log: quiet, fixtures: 'demo' });
    try {
      const anon = client(guarded);
      const admin = { authorization: 'Bearer hunter2' };
      expect((await anon.get('/_emulator/health')).body).toEqual({ status: 'ok', version: '0.1.0' });
      for (const wrong of ['', 'Bearer ', 'Bearer hunter', 'Bearer hunter22', 'Bearer HUNTER2', `Bearer ${'x'.repeat(5000)}`, 'Basic aHVudGVyMg==']) {
        const res = await anon.get('/_emulator/clock', { authorization: wrong });
        expect(res.status, wrong.slice(0, 20)).toBe(401);
        expect(res.body.code).toBe('svc.auth.unauthorized');
      }
      expect((await anon.get('/_emulator/clock', admin)).status).toBe(200);
      const ws2 = (await anon.post('/_emulator/workspaces', {}, admin)).body;
      expect((await anon.get(`/workspaces/${ws2.workspaceId}/keys`)).status).toBe(401);
      expect((await anon.get(`/workspaces/${ws2.workspaceId}/keys`, admin)).status).toBe(200);
      expect((await client(guarded, ws2.apiKey.secret).get('/v1/me')).status).toBe(200);
      // The token does not let a foreign page or host through.
      expect((await anon.post('/_emulator/reset', undefined, { ...admin, origin: 'http://evil.example' })).status).toBe(403);
      expect((await anon.get('/_emulator/state', { ...admin, host: 'evil.example' })).status).toBe(403);
      // The demo fixtures loaded (their own calls need no token).
      expect((await client(guarded, guarded.fixtureKeys[0]!.secret).get('/v1/agents')).body.data.length).toBeGreaterThan(0);
    } finally {
      await guarded.close();
    }
  });
});
