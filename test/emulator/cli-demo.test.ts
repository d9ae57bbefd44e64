import { execFileSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../emulator/package-info.js';
import type { PrebuiltState } from '../../emulator/prebuilt/demo-state.js';
import { exited, startCli } from '../support/cli.js';
import { demoSession, overHttp } from '../support/demo-session.js';

const running = new Set<ChildProcess>();
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

/** The names of the workspaces an emulator holds. */
async function workspaceNames(url: string): Promise<string[]> {
  const res = await fetch(`${url}/_emulator/workspaces`);
  return ((await res.json()) as { data: { name: string }[] }).data.map((w) => w.name);
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  expect(await exited(child)).toBe(0);
}

/** The banner and a scripted session of a CLI started with `args` (in memory unless `onRunStore`), its port written as PORT. */
async function run(args: string[], onRunStore = false): Promise<{ banner: string; answers: string[] }> {
  const started = await startCli(args, { track: running, ...(!onRunStore && { store: 'memory' as const }) });
  const port = new URL(started.url).port;
  const answers = await demoSession(overHttp(started.url));
  const banner = started.stdout();
  await stop(started.child);
  return { banner: banner.replaceAll(`:${port}`, ':PORT'), answers: answers.map((a) => a.replaceAll(`:${port}`, ':PORT')) };
}

/** A copy of the built package (its dist files, fixtures and package.json) that a test may spoil. */
function packageCopy(): string {
  const root = packageRoot();
  const dir = mkdtempSync(join(tmpdir(), 'svc-emu-package-'));
  cpSync(join(root, 'package.json'), join(dir, 'package.json'));
  cpSync(join(root, 'fixtures'), join(dir, 'fixtures'), { recursive: true });
  for (const name of readdirSync(join(root, 'dist'))) {
    if (statSync(join(root, 'dist', name)).isFile()) cpSync(join(root, 'dist', name), join(dir, 'dist', name));
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

// The prebuilt demo starts only a new SQLite store (D-186): these CLIs run in memory,
// whatever the run's store; on the others the demo loads from its fixtures.
describe('the CLI starts the demo from dist/demo-state.json', () => {
  it('with --seed, the banner and a whole session are byte-identical to a fresh load of fixtures/demo.json', async () => {
    const prebuilt = await run(['--seed', '11']);
    // A fixture file named by path is loaded through the API, as before the prebuilt state.
    const fresh = await run(['--seed', '11', '--fixtures', join(packageRoot(), 'fixtures', 'demo.json')]);
    expect(prebuilt.banner).toBe(fresh.banner);
    expect(prebuilt.banner).not.toContain('demo loaded from its fixtures');
    expect(prebuilt.answers.length).toBe(fresh.answers.length);
    for (const [i, answer] of prebuilt.answers.entries()) expect(answer).toBe(fresh.answers[i]);
    // On the run's store too (a PostgreSQL database loads the fixtures; one seeded process
    // draws the same ids, D-972), up to the reset: after it, processes sharing a store go
    // on drawing their own streams rather than taking the baseline's id state (D-208).
    const stored = await run(['--seed', '11'], true);
    expect(stored.banner).toBe(prebuilt.banner);
    const reset = prebuilt.answers.findIndex((a) => a.startsWith('POST /_emulator/reset '));
    expect(reset).toBeGreaterThan(0);
    expect(stored.answers.slice(0, reset + 1)).toEqual(prebuilt.answers.slice(0, reset + 1));
  }, 180_000);

  it('a stale prebuilt state is not used: edited fixtures are loaded, a file from another version is ignored, and the banner says why', async () => {
    const dir = packageCopy();
    const cli = join(dir, 'dist', 'cli.js');
    const statePath = join(dir, 'dist', 'demo-state.json');
    const fixturePath = join(dir, 'fixtures', 'demo.json');
    const original = readFileSync(fixturePath, 'utf8');

    const edited = JSON.parse(original);
    edited.workspaces[0].name = 'Edited demo';
    writeFileSync(fixturePath, JSON.stringify(edited));
    const afterEdit = await startCli([], { track: running, cli, store: 'memory' });
    expect(afterEdit.stdout()).toContain('key demo-full (Edited demo, ws_');
    expect(await workspaceNames(afterEdit.url)).toEqual(['Edited demo']);
    expect(afterEdit.stdout()).toContain(`  demo loaded from its fixtures (slower start): ${statePath} was built from another fixtures\n`);
    await stop(afterEdit.child);

    // Rows that say otherwise, under the key of another version: never served.
    writeFileSync(fixturePath, original);
    const state = JSON.parse(readFileSync(statePath, 'utf8')) as PrebuiltState;
    state.state.tables.workspaces![0]!.name = 'Stale demo';
    writeFileSync(statePath, JSON.stringify({ ...state, key: { ...state.key, version: '0.0.0-old' } }));
    const afterUpgrade = await startCli([], { track: running, cli, store: 'memory' });
    expect(await workspaceNames(afterUpgrade.url)).toEqual(['Demo workspace']);
    expect(afterUpgrade.stdout()).toContain(`  demo loaded from its fixtures (slower start): ${statePath} was built from another version\n`);
    await stop(afterUpgrade.child);

    // The same rows under the right key are used: the check above is what kept them out.
    writeFileSync(statePath, JSON.stringify(state));
    const tampered = await startCli([], { track: running, cli, store: 'memory' });
    expect(await workspaceNames(tampered.url)).toEqual(['Stale demo']);
    expect(tampered.stdout()).not.toContain('demo loaded from its fixtures');
    await stop(tampered.child);
  }, 120_000);

  it('ships in the package: npm pack lists dist/demo-state.json beside the fixtures it was built from', () => {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: packageRoot(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
    ) as { files: { path: string }[] }[];
    const files = packed[0]!.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['dist/demo-state.json', 'dist/cli.js', 'fixtures/demo.json', 'fixtures/demo/logo.svg']));
  }, 60_000);
});
