import type { ChildProcess } from 'node:child_process';
import { rawRequest } from '../support/raw-request.js';
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, exited, startCli } from '../support/cli.js';
import { reopenableCliStore } from '../support/store.js';

const DEMO_KEY = 'svc_test_DemoFullAccessKey000000000000001_0k1rIW';
const running = new Set<ChildProcess>();

afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

const start = (args: string[], env: Record<string, string> = {}) => startCli(args, { env, track: running });

/** One request on a real port with any Host header (fetch would not let us choose it). */
async function raw(url: string, method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(url);
  const { status, text } = await rawRequest({ host: hostname, port: Number(port), method, path, headers });
  return { status, body: text ? JSON.parse(text) : undefined };
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  expect(await exited(child)).toBe(0);
}

describe('CLI: admin token with every fixture and store combination', () => {
  it('--admin-token with the demo fixtures starts, loads the demo, and guards all but health', async () => {
    const { child, url, stdout } = await start(['--admin-token', 's3cret']);
    expect(stdout()).toContain(DEMO_KEY);
    expect((await fetch(`${url}/v1/agents`, { headers: { authorization: `Bearer ${DEMO_KEY}` } })).status).toBe(200);
    const health = await fetch(`${url}/_emulator/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', version: '0.1.0' });
    expect((await fetch(`${url}/_emulator/state`)).status).toBe(401);
    expect((await fetch(`${url}/_emulator/state`, { headers: { authorization: 'Bearer s3cret-not' } })).status).toBe(401);
    // The demo's offline web was loaded by the fixture loader despite the token.
    const web = await fetch(`${url}/_emulator/web`, { headers: { authorization: 'Bearer s3cret' } });
    expect(web.status).toBe(200);
    expect(((await web.json()) as { pages: unknown[] }).pages.length).toBeGreaterThan(0);
    await stop(child);
  });

  it('--admin-token with --seed and --db: starts, restarts on the same file, and reset returns to the demo', async () => {
    const db = reopenableCliStore();
    const args = ['--admin-token', 't0k', '--seed', '7', '--db', db];
    const admin = { authorization: 'Bearer t0k' };
    const first = await start(args);
    expect(first.stdout()).toContain(DEMO_KEY);
    const made = await fetch(`${first.url}/_emulator/workspaces`, { method: 'POST', headers: admin });
    expect(made.status).toBe(201);
    await stop(first.child);

    const second = await start(args);
    const { apiKey } = (await made.json()) as { apiKey: { secret: string } };
    expect((await fetch(`${second.url}/v1/me`, { headers: { authorization: `Bearer ${apiKey.secret}` } })).status).toBe(200);
    expect((await fetch(`${second.url}/_emulator/reset`, { method: 'POST', headers: admin })).status).toBe(200);
    expect((await fetch(`${second.url}/v1/me`, { headers: { authorization: `Bearer ${apiKey.secret}` } })).status).toBe(401);
    expect((await fetch(`${second.url}/v1/me`, { headers: { authorization: `Bearer ${DEMO_KEY}` } })).status).toBe(200);
    await stop(second.child);
  });

  it('SVC_EMULATOR_ADMIN_TOKEN with --fixtures none and --seed starts too', async () => {
    const { child, url } = await start(['--fixtures', 'none', '--seed', '3'], { SVC_EMULATOR_ADMIN_TOKEN: 'env-token' });
    expect((await fetch(`${url}/_emulator/clock`)).status).toBe(401);
    expect((await fetch(`${url}/_emulator/clock`, { headers: { authorization: 'Bearer env-token' } })).status).toBe(200);
    await stop(child);
  });
});

describe('CLI: Host and origin checks on a real port', () => {
  it('refuses a foreign Host and a cross-origin page; answers allowed hosts from --allowed-host', async () => {
    const { child, url } = await start(['--fixtures', 'none', '--allowed-host', 'emulator', '--allowed-host', '.lan.test,box.example']);
    const port = new URL(url).port;
    expect((await raw(url, 'GET', '/_emulator/state', { host: `rebind.attacker.example:${port}` })).status).toBe(403);
    const keys = await raw(url, 'POST', '/_emulator/workspaces', { host: `attacker.example:${port}` });
    expect(keys.status).toBe(403);
    expect(keys.body.code).toBe('svc.auth.forbidden');
    for (const host of [`emulator:${port}`, `api.lan.test:${port}`, `box.example:${port}`, `localhost:${port}`, `127.0.0.1:${port}`]) {
      expect((await raw(url, 'GET', '/_emulator/clock', { host })).status, host).toBe(200);
    }
    const cross = await fetch(`${url}/_emulator/reset`, {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(cross.status).toBe(403);
    const sameSite = await raw(url, 'POST', '/_emulator/workspaces', {
      host: `localhost:${port}`,
      'sec-fetch-site': 'same-site',
      origin: `http://cafe.localhost:${port}`,
    });
    expect(sameSite.status).toBe(403);
    await stop(child);
  });

  it('SVC_EMULATOR_ALLOWED_HOSTS takes a comma-separated list; all switches the Host check off', async () => {
    const listed = await start(['--fixtures', 'none'], { SVC_EMULATOR_ALLOWED_HOSTS: 'emulator, other.test' });
    expect((await raw(listed.url, 'GET', '/_emulator/clock', { host: 'other.test' })).status).toBe(200);
    expect((await raw(listed.url, 'GET', '/_emulator/clock', { host: 'third.test' })).status).toBe(403);
    await stop(listed.child);
    const all = await start(['--fixtures', 'none', '--allowed-host', 'all']);
    expect((await raw(all.url, 'GET', '/_emulator/clock', { host: 'third.test' })).status).toBe(200);
    await stop(all.child);
  });

  it('stops at once with a message when an --allowed-host value is not a host name', async () => {
    const child = spawn(process.execPath, [CLI, '--port', '0', '--allowed-host', 'emulator:4010'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    expect(await exited(child)).toBe(1);
    expect(stderr).toBe(
      'svc-emulator: --allowed-host takes host names, .example.test for a domain and the names under it, IP addresses, or all ("emulator:4010" is none of them), got "emulator:4010"\n',
    );
  });
});
