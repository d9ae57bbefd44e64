import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, exited, startCli } from '../support/cli.js';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDbPath } from '../support/backends.js';

const DEMO_KEY = 'svc_test_DemoFullAccessKey000000000000001_0k1rIW';
const running = new Set<ChildProcess>();

afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

const start = (args: string[], env: Record<string, string> = {}) => startCli(args, { env, track: running });

function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return exited(child).then((code) => ({ code, stderr }));
}

describe('svc-emulator CLI', () => {
  it('prints the ready line first, serves /v1/me on a real port with the demo key, stops on SIGTERM', async () => {
    const { child, url, stdout } = await start([]);
    expect(stdout().startsWith(`svc-emulator ready at ${url}\n`)).toBe(true);
    expect(stdout()).toContain(DEMO_KEY);
    const res = await fetch(`${url}/v1/me`, { headers: { authorization: `Bearer ${DEMO_KEY}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { scopes: string[] }).scopes).toContain('chat:write');
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });

  it('keeps state in a --db file across a SIGTERM restart, the file intact', async () => {
    const db = tempDbPath();
    const first = await start(['--db', db, '--fixtures', 'none']);
    const ws = (await (await fetch(`${first.url}/_emulator/workspaces`, { method: 'POST' })).json()) as { apiKey: { secret: string } };
    const headers = { authorization: `Bearer ${ws.apiKey.secret}`, 'content-type': 'application/json' };
    const agent = (await (await fetch(`${first.url}/v1/agents`, { method: 'POST', headers, body: JSON.stringify({ name: 'Persisted', identity: { businessName: 'B' } }) })).json()) as { id: string };
    first.child.kill('SIGTERM');
    expect(await exited(first.child)).toBe(0);
    const check = new BetterSqlite3(db, { readonly: true });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();

    const second = await start([], { SVC_EMULATOR_DB: db });
    const again = await fetch(`${second.url}/v1/agents/${agent.id}`, { headers });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(agent);
    second.child.kill('SIGINT');
    expect(await exited(second.child)).toBe(0);
  });

  it('stops with a message naming the field when the fixture file is bad', async () => {
    const file = join(tempDbPath(), '..', 'bad.json');
    writeFileSync(file, JSON.stringify({ workspaces: [{ name: 'X', keys: [{ name: 'k', scopes: ['nope'] }] }] }));
    const { code, stderr } = await run(['--fixtures', file, '--port', '0']);
    expect(code).toBe(1);
    expect(stderr).toContain('workspaces.0.keys.0.scopes');
  });

  it('refuses unknown flags and bad ports', async () => {
    expect((await run(['--bogus'])).code).toBe(2);
    const bad = await run(['--port', '70000']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--port');
  });
});
