import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { FLAGS, type FlagSpec } from '../../emulator/cli/flags.js';
import { packageRoot } from '../../emulator/package-info.js';
import { CLI, exited, runToEnd, startCli } from '../support/cli.js';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDbPath } from '../support/backends.js';
import { createEmulator } from '../../emulator/emulator.js';

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
    const agent = (await (
      await fetch(`${first.url}/v1/agents`, { method: 'POST', headers, body: JSON.stringify({ name: 'Persisted', identity: { businessName: 'B' } }) })
    ).json()) as { id: string };
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

  it('refuses a second emulator on a --db file another one is serving, and takes the file once that one is killed', async () => {
    const db = tempDbPath();
    const first = await start(['--db', db, '--fixtures', 'none']);
    const made = (await (await fetch(`${first.url}/_emulator/workspaces`, { method: 'POST' })).json()) as { apiKey: { secret: string } };
    // Two would each answer from caches of their own writes: the second does not start.
    const second = await runToEnd(['--db', db, '--fixtures', 'none', '--port', '0'], { track: running });
    expect(second.code).toBe(1);
    expect(second.stderr.trim()).toBe(
      `svc-emulator: cannot use ${db}: another svc-emulator has it open (in this process or another). Two emulators on one store would each answer from caches of their own writes; stop the other, use another file, or share a postgres:// database between them`,
    );
    expect((await fetch(`${first.url}/v1/me`, { headers: { authorization: `Bearer ${made.apiKey.secret}` } })).status).toBe(200);
    // Killed, the first holds nothing any more: the next start takes the file and its state.
    first.child.kill('SIGKILL');
    await exited(first.child);
    const third = await start(['--db', db, '--fixtures', 'none']);
    expect((await fetch(`${third.url}/v1/me`, { headers: { authorization: `Bearer ${made.apiKey.secret}` } })).status).toBe(200);
    third.child.kill('SIGTERM');
    expect(await exited(third.child)).toBe(0);
    expect(readdirSync(dirname(db))).toEqual([basename(db)]);
  });

  it('stops with a message naming the field when the fixture file is bad', async () => {
    const file = join(tempDbPath(), '..', 'bad.json');
    writeFileSync(file, JSON.stringify({ workspaces: [{ name: 'X', keys: [{ name: 'k', scopes: ['nope'] }] }] }));
    const { code, stderr } = await run(['--fixtures', file, '--port', '0']);
    expect(code).toBe(1);
    expect(stderr).toContain('workspaces.0.keys.0.scopes');
  });

  it('a flag of the wrong kind, an unknown flag, a bad --db: one line naming the flag and the value, exit 1, nothing started', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-emu-flags-'));
    const cases: [string[], Record<string, string>, string][] = [
      [['--seed', 'x'], {}, '--seed takes a whole number (up to 15 digits), got "x"'],
      [['--port', 'abc'], {}, '--port takes an integer from 0 to 65535, got "abc"'],
      [['--port', '70000'], {}, '--port takes an integer from 0 to 65535, got "70000"'],
      [[], { SVC_EMULATOR_PORT: '-1' }, 'SVC_EMULATOR_PORT takes an integer from 0 to 65535, got "-1"'],
      [['--lease', '10'], {}, '--lease takes milliseconds, at least 300, got "10"'],
      [['--log', 'all'], {}, '--log takes "requests" or "none", got "all"'],
      [
        ['--db', '/nonexistent/dir/x.db'],
        {},
        '--db takes a SQLite file in an existing folder (there is no folder /nonexistent/dir), got "/nonexistent/dir/x.db"',
      ],
      // An unknown URL scheme is not a SQLite file named "mysql:"; the password is not repeated.
      [
        ['--db', 'mysql://root:hunter2@127.0.0.1/x'],
        {},
        '--db takes a SQLite file or a postgres:// URL (mysql: is not a database svc-emulator speaks), got "mysql://root:***@127.0.0.1/x"',
      ],
      [['--db', dir], {}, `--db takes a SQLite file, not a folder, got "${dir}"`],
      // An empty value is a missing one, named by its flag (not by the library's option).
      [['--db', ''], {}, '--db takes a SQLite file or a postgres:// URL, got ""'],
      [['--allowed-host', ''], {}, '--allowed-host takes a value, got ""'],
      [['--db', join(packageRoot(), 'README.md')], {}, `--db ${join(packageRoot(), 'README.md')}: cannot use it as a SQLite store: file is not a database`],
      [['--bogus'], {}, 'unknown flag --bogus (svc-emulator --help lists them)'],
      [['--port'], {}, '--port needs a value'],
      [['--lease', '-5'], {}, '--lease needs a value (a value that starts with - is written --lease=-...)'],
      [['--lease=-5'], {}, '--lease takes milliseconds, at least 300, got "-5"'],
      [['serve'], {}, 'unexpected argument "serve" (flags start with --; exec takes its command after --)'],
    ];
    for (const [args, env, line] of cases) {
      const run = await runToEnd(['--fixtures', 'none', ...args], { env });
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr, args.join(' ')).toBe(`svc-emulator: ${line}\n`);
      expect(run.stdout, args.join(' ')).toBe('');
    }
    // Nothing was created in the way: not the folder's file, not a file named after the URL.
    expect(existsSync(join(packageRoot(), 'mysql:'))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  }, 120_000);

  it('--help lists every flag of the table, with its variable and default', async () => {
    const run = await runToEnd(['--help']);
    expect(run.code).toBe(0);
    for (const [name, flag] of Object.entries(FLAGS) as [string, FlagSpec][]) {
      expect(run.stdout).toContain(`--${name}${flag.arg ? ` ${flag.arg}` : ''}`);
      if (flag.env) expect(run.stdout).toContain(flag.env);
      if (flag.shows) expect(run.stdout.replace(/\s+/g, ' ')).toContain(`default ${flag.shows}`);
    }
  });

  // Linux: the threads are read from /proc.
  it.runIf(process.platform === 'linux')(
    'answers at once, starts its ingestion threads before any upload, and reads an upload as an in-process emulator does (D-1000)',
    async () => {
      const { child, url } = await start(['--fixtures', 'none', '--seed', '3']);
      const pid = child.pid!;
      expect((await fetch(`${url}/_emulator/health`)).status).toBe(200);
      const warmed = () => workerThreads(pid).length;
      for (let i = 0; i < 600 && warmed() < 2; i++) await new Promise((r) => setTimeout(r, 50));
      expect(warmed()).toBeGreaterThanOrEqual(2);

      const page = `<html><head><title>Hours</title></head><body><main><h1>Hours</h1><p>We open at nine. ${'The shop on /srv/www sells bicycles, bells and saddles. '.repeat(80)}</p><h2>Closed</h2><p>Sundays.</p></main></body></html>`;
      const read = async (base: string, fetcher: (url: string, init?: RequestInit) => Promise<Response>) => {
        const ws = (await (await fetcher(`${base}/_emulator/workspaces`, { method: 'POST' })).json()) as { apiKey: { secret: string } };
        const auth = { authorization: `Bearer ${ws.apiKey.secret}` };
        const form = new FormData();
        form.set('file', new File([page], 'hours.html', { type: 'text/html' }));
        const { id } = (await (await fetcher(`${base}/v1/knowledge/uploads`, { method: 'POST', headers: auth, body: form })).json()) as { id: string };
        await fetcher(`${base}/_emulator/queue/drain`, { method: 'POST' });
        const { status, title, chunkCount, tokenCount, summary } = (await (
          await fetcher(`${base}/v1/knowledge/sources/${id}`, { headers: auth })
        ).json()) as Record<string, unknown>;
        return { status, title, chunkCount, tokenCount, summary };
      };
      const inProcess = await createEmulator({ fixtures: 'none', seed: 3, log: () => {} });
      try {
        const expected = await read('http://localhost', (u, init) => inProcess.fetch(u, init));
        expect(expected.status).toBe('ready');
        expect(await read(url, fetch)).toEqual(expected);
      } finally {
        await inProcess.close();
      }
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
    },
  );

  // Linux: the threads are read from /proc.
  it.runIf(process.platform === 'linux')(
    "keeps its warmed threads past the library's 30 s without work, so that uploads after a pause find them warm (D-1221)",
    async () => {
      const { child } = await start(['--fixtures', 'none', '--seed', '3']);
      const pid = child.pid!;
      for (let i = 0; i < 600 && workerThreads(pid).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
      const warm = workerThreads(pid);
      expect(warm.length).toBeGreaterThanOrEqual(2);
      await new Promise((r) => setTimeout(r, 36_000));
      expect(workerThreads(pid)).toEqual(expect.arrayContaining(warm));
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
    },
    60_000,
  );
});

/**
 * The ids of a process's worker threads that have run: threads started well after the
 * process (V8's and libuv's start with it; field 22 of a stat line is when a thread
 * started) that spent CPU.
 */
function workerThreads(pid: number): string[] {
  const stat = (path: string) => readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
  const started = Number(stat(`/proc/${pid}/stat`)[19]);
  return readdirSync(`/proc/${pid}/task`).filter((tid) => {
    // A thread that ended since the directory was read is no worker thread of now.
    const fields = existsSync(`/proc/${pid}/task/${tid}/stat`) ? stat(`/proc/${pid}/task/${tid}/stat`) : undefined;
    return fields !== undefined && Number(tid) !== pid && Number(fields[19]) - started >= 20 && Number(fields[11]) + Number(fields[12]) > 0;
  });
}
