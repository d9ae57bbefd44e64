import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDbPath } from '../support/backends.js';
import { CLI, exited, listening, runToEnd } from '../support/cli.js';

const DEMO_KEY = 'svc_test_DemoFullAccessKey000000000000001_0k1rIW';
const running = new Set<ChildProcess>();

afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

const exec = (flags: string[], script: string) => runToEnd(['exec', ...flags, '--', process.execPath, '-e', script], { track: running });

describe('svc-emulator exec', () => {
  it('runs the command with the URL, the demo key and its workspace, exits with its status, and stops the server', async () => {
    const script = `
      const url = process.env.SVC_EMULATOR_URL;
      fetch(url + '/v1/me', { headers: { authorization: 'Bearer ' + process.env.SVC_EMULATOR_KEY } })
        .then((r) => r.json())
        .then((me) => { console.log(JSON.stringify({ url, key: process.env.SVC_EMULATOR_KEY, ws: process.env.SVC_EMULATOR_WORKSPACE_ID, me })); process.exit(7); });`;
    const run = await exec([], script);
    expect(run.code).toBe(7);
    const seen = JSON.parse(run.stdout.trim());
    expect(seen.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(seen.key).toBe(DEMO_KEY);
    expect(seen.me.workspaceId).toBe(seen.ws);
    expect(seen.me.scopes).toContain('chat:write');
    // stdout is the command's own; the emulator speaks on stderr and names no secret.
    expect(run.stderr).toContain(
      `svc-emulator: ready at ${seen.url}; running ${process.execPath} with SVC_EMULATOR_URL and SVC_EMULATOR_KEY (demo-full of Demo workspace)`,
    );
    expect(run.stderr).not.toContain(DEMO_KEY);
    expect(await listening(seen.url)).toBe(false);
  });

  it('without a key in the fixtures, passes only the URL; a zero status passes through', async () => {
    const run = await exec(['--fixtures', 'none'], `console.log(JSON.stringify([process.env.SVC_EMULATOR_URL, process.env.SVC_EMULATOR_KEY ?? null]))`);
    expect(run.code, `${run.signal} ${run.stderr}`).toBe(0);
    const [url, key] = JSON.parse(run.stdout);
    expect(url).toMatch(/^http:/);
    expect(key).toBeNull();
  });

  it('a nested exec gives its command exactly the inner emulator: the outer key and workspace are removed, not left beside the new URL', async () => {
    // Outer: the demo (URL, key, workspace). Inner: --fixtures none (a URL only).
    const show = `console.log(JSON.stringify(['SVC_EMULATOR_URL', 'SVC_EMULATOR_KEY', 'SVC_EMULATOR_WORKSPACE_ID'].map((n) => process.env[n] ?? null)))`;
    const run = await runToEnd(['exec', '--', process.execPath, CLI, 'exec', '--fixtures', 'none', '--', process.execPath, '-e', show], {
      track: running,
      // And from a CI job's own settings, stale values the outer exec replaces.
      env: { SVC_EMULATOR_URL: 'http://stale.example', SVC_EMULATOR_KEY: 'svc_test_stale', SVC_EMULATOR_WORKSPACE_ID: 'ws_stale' },
    });
    expect(run.code, run.stderr).toBe(0);
    const [url, key, ws] = JSON.parse(run.stdout) as (string | null)[];
    const urls = [...run.stderr.matchAll(/ready at (\S+);/g)].map((m) => m[1]);
    expect(urls).toHaveLength(2);
    expect(url).toBe(urls[1]);
    expect(key).toBeNull();
    expect(ws).toBeNull();

    // Inner with the demo too (another seed, so other ids): its own workspace, which its key reads.
    const check = `fetch(process.env.SVC_EMULATOR_URL + '/v1/me', { headers: { authorization: 'Bearer ' + process.env.SVC_EMULATOR_KEY } })
      .then((r) => r.json()).then((me) => console.log(JSON.stringify([me.workspaceId, process.env.SVC_EMULATOR_WORKSPACE_ID])))`;
    const both = await runToEnd(['exec', '--seed', '1', '--', process.execPath, CLI, 'exec', '--seed', '2', '--', process.execPath, '-e', check], {
      track: running,
    });
    expect(both.code, both.stderr).toBe(0);
    const [read, given] = JSON.parse(both.stdout) as string[];
    expect(given).toMatch(/^ws_/);
    expect(read).toBe(given);
  });

  it('a command that does not exist: one line, the emulator stopped cleanly, exit 127', async () => {
    const db = tempDbPath();
    const run = await runToEnd(['exec', '--fixtures', 'none', '--db', db, '--', 'svc-no-such-command-xyz', '--flag'], { track: running });
    expect(run.code).toBe(127);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('svc-emulator: exec: command not found: svc-no-such-command-xyz');
    // The store was closed by a clean stop, not left by a crash.
    const store = new BetterSqlite3(db, { readonly: true });
    expect(store.prepare("SELECT value FROM meta WHERE key = 'clean'").get()).toEqual({ value: 'true' });
    store.close();
  });

  it('a command killed by a signal gives 128+n', async () => {
    const run = await exec(['--fixtures', 'none'], `process.kill(process.pid, 'SIGTERM')`);
    expect(run.code).toBe(143);
  });

  it('SIGTERM to the CLI reaches the command, which ends as it chooses; then the emulator stops', async () => {
    const child = spawn(
      process.execPath,
      [
        CLI,
        'exec',
        '--fixtures',
        'none',
        '--',
        process.execPath,
        '-e',
        `
      process.on('SIGTERM', () => { console.log('command got SIGTERM'); process.exit(5); });
      console.log('command started'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    running.add(child);
    let out = '';
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('command started')) resolve();
      }),
    );
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(5);
    expect(out).toContain('command got SIGTERM');
    expect(await listening(/ready at (\S+);/.exec(err)![1]!)).toBe(false);
  });

  it('refuses exec without a command after --', async () => {
    const run = await runToEnd(['exec', '--fixtures', 'none'], { track: running });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('svc-emulator: exec needs a command after --: svc-emulator exec [options] -- <command> [args...]\n');
  });
});
