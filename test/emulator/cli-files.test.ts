import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSafely } from '../../emulator/cli/safe-file.js';
import { exited, runToEnd, startCli } from '../support/cli.js';

const DEMO_KEY = 'svc_test_DemoFullAccessKey000000000000001_0k1rIW';
const running = new Set<ChildProcess>();

afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

const tempDir = () => mkdtempSync(join(tmpdir(), 'svc-emu-files-'));
const mode = (path: string) => statSync(path).mode & 0o777;

/** Everything in `dir` as it is now: kind, target or content, and mode, by name. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = lstatSync(path);
    out[name] = st.isSymbolicLink() ? `link -> ${readlinkSync(path)}` : `file ${(st.mode & 0o777).toString(8)} ${readFileSync(path, 'utf8')}`;
  }
  return out;
}

/**
 * Names an attacker who can write in the folder would plant, betting on how a temporary
 * file is named: the old `.<name>.<pid>.tmp`, and the usual others.
 */
const plausible = (name: string, pid: number) => [
  `.${name}.${pid}.tmp`,
  `.${name}.tmp`,
  `${name}.tmp`,
  `${name}.${pid}`,
  `.${name}.swp`,
  `${name}~`,
  `.${name}.new`,
];

describe('files the emulator writes are written safely (a fresh 0600 file renamed into place)', () => {
  it('a symlink or a 0666 file at the target is replaced, never written through; the folder holds nothing else', () => {
    const dir = tempDir();
    const outside = tempDir();
    const victim = join(outside, 'victim.txt');
    writeFileSync(victim, 'precious');
    const target = join(dir, 'state.json');
    symlinkSync(victim, target);
    writeFileSafely(target, '{"a":1}\n');
    expect(lstatSync(target).isSymbolicLink()).toBe(false);
    expect(readFileSync(target, 'utf8')).toBe('{"a":1}\n');
    expect(mode(target)).toBe(0o600);
    expect(readFileSync(victim, 'utf8')).toBe('precious');

    writeFileSync(target, 'old');
    chmodSync(target, 0o666);
    writeFileSafely(target, 'new');
    expect(mode(target)).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('--export-on-exit: with symlinks at the old and other plausible temporary names and a pre-created 0666 target, the state lands 0600 and nothing else changes', async () => {
    const dir = tempDir();
    const outside = tempDir();
    const victim = join(outside, 'victim.txt');
    writeFileSync(victim, 'precious');
    chmodSync(victim, 0o644);
    const target = join(dir, 'state.json');
    writeFileSync(target, 'planted, world-writable');
    chmodSync(target, 0o666);

    const cli = await startCli(['--fixtures', 'demo', '--export-on-exit', target], { track: running });
    const names = plausible('state.json', cli.child.pid!);
    for (const [i, name] of names.entries()) {
      if (i % 2 === 0) symlinkSync(victim, join(dir, name));
      else {
        writeFileSync(join(dir, name), `planted ${i}`);
        chmodSync(join(dir, name), 0o666);
      }
    }
    const planted = snapshot(dir);
    delete planted['state.json'];
    const before = snapshot(outside);

    cli.child.kill('SIGTERM');
    expect(await exited(cli.child)).toBe(0);
    // The target: a regular file of ours, 0600, holding the state.
    expect(lstatSync(target).isFile()).toBe(true);
    expect(mode(target)).toBe(0o600);
    expect(JSON.parse(readFileSync(target, 'utf8'))).toMatchObject({ format: 'svc-emulator-state' });
    // Everything planted is as it was, the victim too, and no temporary file is left.
    const after = snapshot(dir);
    delete after['state.json'];
    expect(after).toEqual(planted);
    expect(snapshot(outside)).toEqual(before);
  });
});

describe('--write-env: the variables exec gives, in a file, for a server in the background', () => {
  it('is written once the server answers (0600, the key works), and removed on a clean stop', async () => {
    const dir = tempDir();
    const file = join(dir, 'emulator.env');
    // A symlink planted at the path is replaced, not followed.
    const victim = join(tempDir(), 'victim');
    writeFileSync(victim, 'precious');
    symlinkSync(victim, file);
    const cli = await startCli(['--write-env', file], { track: running });
    expect(lstatSync(file).isFile()).toBe(true);
    expect(mode(file)).toBe(0o600);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    const vars = Object.fromEntries(
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(/=(.*)/s).slice(0, 2)),
    );
    expect(Object.keys(vars)).toEqual(['SVC_EMULATOR_URL', 'SVC_EMULATOR_KEY', 'SVC_EMULATOR_WORKSPACE_ID']);
    expect(vars.SVC_EMULATOR_URL).toBe(cli.url);
    expect(vars.SVC_EMULATOR_KEY).toBe(DEMO_KEY);
    const me = await fetch(`${cli.url}/v1/me`, { headers: { authorization: `Bearer ${vars.SVC_EMULATOR_KEY}` } });
    expect(((await me.json()) as { workspaceId: string }).workspaceId).toBe(vars.SVC_EMULATOR_WORKSPACE_ID);
    cli.child.kill('SIGTERM');
    expect(await exited(cli.child)).toBe(0);
    expect(existsSync(file)).toBe(false);
  });

  it('sourced by a shell, it gives what exec gives: with --fixtures none, no key (an outer one is cleared)', async () => {
    const dir = tempDir();
    const file = join(dir, 'emulator.env');
    const cli = await startCli(['--fixtures', 'none', '--write-env', file], { track: running });
    const run = await runToEnd(['-c', `set -a; . '${file}'; set +a; echo "$SVC_EMULATOR_URL|$SVC_EMULATOR_KEY|$SVC_EMULATOR_WORKSPACE_ID"`], {
      command: 'sh',
      env: { SVC_EMULATOR_KEY: 'outer', SVC_EMULATOR_WORKSPACE_ID: 'ws_outer' },
    });
    expect(run.stdout).toBe(`${cli.url}||\n`);
    cli.child.kill('SIGTERM');
    expect(await exited(cli.child)).toBe(0);
  });

  it('a folder that does not exist: one line, exit 1, nothing started', async () => {
    const run = await runToEnd(['--fixtures', 'none', '--port', '0', '--write-env', '/nonexistent/dir/emulator.env']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('svc-emulator: --write-env /nonexistent/dir/emulator.env: cannot write in /nonexistent/dir: ENOENT\n');
  });
});
