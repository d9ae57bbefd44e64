import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { fileDigest, tempDbPath } from '../support/backends.js';
import { reopenableCliStore } from '../support/store.js';
import { exited, runToEnd, startCli } from '../support/cli.js';

const DEMO_KEY = 'svc_test_DemoFullAccessKey000000000000001_0k1rIW';
const running = new Set<ChildProcess>();

afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

const start = (args: string[]) => startCli(args, { track: running });
const tempDir = () => mkdtempSync(join(tmpdir(), 'svc-emu-state-'));
const auth = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  expect(await exited(child)).toBe(0);
}

describe('--export-on-exit and --import', () => {
  it('a file written on SIGTERM starts another emulator (no seed) with the same data and working keys; reset returns to it', async () => {
    const dir = tempDir();
    const file = join(dir, 'state.json');
    const first = await start(['--export-on-exit', file]);
    const agent = (await (
      await fetch(`${first.url}/v1/agents`, {
        method: 'POST',
        headers: auth(DEMO_KEY),
        body: JSON.stringify({ name: 'Kept', identity: { businessName: 'B' } }),
      })
    ).json()) as { id: string };
    const made = (await (await fetch(`${first.url}/_emulator/workspaces`, { method: 'POST' })).json()) as { workspaceId: string; apiKey: { secret: string } };
    let stderr = '';
    first.child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    await stop(first.child);
    expect(stderr).toContain(`svc-emulator: state written to ${file}`);
    // Written atomically: the file and nothing else in its directory.
    expect(readdirSync(dir)).toEqual(['state.json']);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    expect(doc).toMatchObject({ format: 'svc-emulator-state', version: 1 });
    // Key hashes in the clear, so that any emulator can import the file.
    for (const row of doc.tables.api_keys) expect(row.hash).toMatch(/^[0-9a-f]{64}$/);

    const second = await start(['--import', file]);
    expect(second.stdout()).toContain(`state imported from ${file}`);
    // The demo key's secret is written in the bundled fixture file, so it is shown again.
    expect(second.stdout()).toContain(`key demo-full (Demo workspace, `);
    expect(second.stdout()).toContain(DEMO_KEY);
    expect(second.stdout()).not.toContain(made.apiKey.secret);
    const again = await fetch(`${second.url}/v1/agents/${agent.id}`, { headers: auth(DEMO_KEY) });
    expect(again.status).toBe(200);
    expect(((await (await fetch(`${second.url}/v1/me`, { headers: auth(made.apiKey.secret) })).json()) as { workspaceId: string }).workspaceId).toBe(
      made.workspaceId,
    );
    await fetch(`${second.url}/v1/agents/${agent.id}`, { method: 'DELETE', headers: auth(DEMO_KEY) });
    expect((await fetch(`${second.url}/_emulator/reset`, { method: 'POST' })).status).toBe(200);
    expect((await fetch(`${second.url}/v1/agents/${agent.id}`, { headers: auth(DEMO_KEY) })).status).toBe(200);
    await stop(second.child);
  });

  it('names from an imported file reach the terminal escaped: no control sequence retitles, clears or recolours it (D-1114)', async () => {
    const source = await createEmulator({ fixtures: 'demo', seed: 7 });
    const doc = (await (await source.fetch('http://localhost/_emulator/state')).json()) as { tables: { workspaces: { name: string }[] } };
    await source.close();
    const demo = doc.tables.workspaces.find((w) => w.name === 'Demo workspace')!;
    // No NUL: PostgreSQL's text cannot hold one, so that store refuses such a state whole.
    demo.name = 'Demo\u001b]0;owned\u0007\u001b[2J\u202e workspace\u0085';
    const file = join(tempDir(), 'escapes.json');
    writeFileSync(file, JSON.stringify(doc));
    const run = await start(['--import', file, '--seed', '7']);
    const banner = run.stdout();
    expect(banner).toContain('key demo-full (Demo\\u{1b}]0;owned\\u{7}\\u{1b}[2J\\u{202e} workspace\\u{85}, ');
    expect(banner.replaceAll('\n', '')).not.toMatch(/[\p{Cc}\u202e]/u);
    await stop(run.child);
  });

  it('exec writes the state when its command ends', async () => {
    const file = join(tempDir(), 'after-exec.json');
    const run = await runToEnd(
      [
        'exec',
        '--fixtures',
        'none',
        '--export-on-exit',
        file,
        '--',
        process.execPath,
        '-e',
        `
      fetch(process.env.SVC_EMULATOR_URL + '/_emulator/workspaces', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"made by the command"}' })
        .then((r) => r.json()).then((w) => console.log(w.workspaceId));`,
      ],
      { track: running },
    );
    expect(run.code).toBe(0);
    const workspaces = JSON.parse(readFileSync(file, 'utf8')).tables.workspaces;
    expect(workspaces.map((w: { id: string; name: string }) => [w.id, w.name])).toEqual([[run.stdout.trim(), 'made by the command']]);
  });

  it('SVC_EMULATOR_EXPORT_ON_EXIT and SVC_EMULATOR_IMPORT do what the flags do', async () => {
    const file = join(tempDir(), 'by-env.json');
    const made = await runToEnd(
      [
        'exec',
        '--fixtures',
        'none',
        '--',
        process.execPath,
        '-e',
        `
      fetch(process.env.SVC_EMULATOR_URL + '/_emulator/workspaces', { method: 'POST' }).then((r) => r.json()).then((w) => console.log(w.workspaceId));`,
      ],
      { env: { SVC_EMULATOR_EXPORT_ON_EXIT: file }, track: running },
    );
    expect(made.code).toBe(0);
    const seen = await runToEnd(
      [
        'exec',
        '--fixtures',
        'none',
        '--',
        process.execPath,
        '-e',
        `
      fetch(process.env.SVC_EMULATOR_URL + '/_emulator/workspaces/${made.stdout.trim()}').then((r) => process.exit(r.status === 200 ? 0 : 8));`,
      ],
      { env: { SVC_EMULATOR_IMPORT: file }, track: running },
    );
    expect(seen.code, seen.stderr).toBe(0);
  });

  it('a GET /_emulator/state document imports with the same --seed, and is refused naming the file with another', async () => {
    const dir = tempDir();
    const file = join(dir, 'sealed.json');
    const seeded = await start(['--seed', '11']);
    writeFileSync(file, await (await fetch(`${seeded.url}/_emulator/state`)).text());
    await stop(seeded.child);
    expect(readFileSync(file, 'utf8')).toContain('"hash":"sealed:');

    const same = await start(['--seed', '11', '--import', file]);
    expect((await fetch(`${same.url}/v1/me`, { headers: auth(DEMO_KEY) })).status).toBe(200);
    await stop(same.child);

    const other = await runToEnd(['--seed', '12', '--import', file, '--port', '0'], { track: running });
    expect(other.code).toBe(1);
    expect(other.stderr.trim().split('\n')).toEqual([
      `svc-emulator: ${file}: tables.api_keys.0.hash is sealed by another emulator; import it with the --seed (or --db) of the emulator that exported it, or export with --export-on-exit, which writes files any emulator imports`,
    ]);
  });

  it('a GET /_emulator/state document of an unseeded --db emulator imports back into that file', async () => {
    const db = reopenableCliStore();
    const file = join(tempDir(), 'own.json');
    const first = await start(['--db', db]);
    const made = (await (await fetch(`${first.url}/_emulator/workspaces`, { method: 'POST' })).json()) as { apiKey: { secret: string } };
    writeFileSync(file, await (await fetch(`${first.url}/_emulator/state`)).text());
    await fetch(`${first.url}/_emulator/reset`, { method: 'POST' });
    await stop(first.child);

    const second = await start(['--db', db, '--import', file]);
    expect((await fetch(`${second.url}/v1/me`, { headers: auth(made.apiKey.secret) })).status).toBe(200);
    await stop(second.child);
  });
});

// A state file as --export-on-exit writes it: a workspace with its key, hashes in the clear.
const written = await (async () => {
  const source = await createEmulator({ fixtures: 'none', seed: 3, log: () => {} });
  await source.createWorkspace({ name: 'Written' });
  const doc = await source.exportState({ plainHashes: true });
  await source.close();
  return doc as unknown as { clock: unknown; ids: Record<string, unknown>; tables: Record<string, any> };
})();
const changed = (change: (doc: typeof written) => void) => {
  const doc = structuredClone(written);
  change(doc);
  return JSON.stringify(doc);
};

describe('--import of a bad state file: one line naming the file, exit 1, nothing written', () => {
  const dir = tempDir();
  const valid = (): Record<string, unknown> => ({
    format: 'svc-emulator-state',
    version: 1,
    clock: { frozen: true, value: 0 },
    ids: { time: 0, random: '1', draws: 0 },
    tables: {},
  });
  const cases: [string, string | undefined, (file: string) => string][] = [
    ['missing', undefined, (f) => `cannot read ${f}: no such file`],
    ['not JSON', '{"format": ', (f) => `${f} is not JSON: `],
    ['another JSON document', JSON.stringify({ openapi: '3.1.0' }), (f) => `${f} is not a state file of svc-emulator (no "format": "svc-emulator-state")`],
    [
      'a newer state version',
      JSON.stringify({ ...valid(), version: 2 }),
      (f) => `${f} is state version 2, newer than this svc-emulator reads (version 1); upgrade svc-emulator to import it`,
    ],
    ['an unknown table', JSON.stringify({ ...valid(), tables: { nope: [] } }), (f) => `${f}: field tables.nope: unknown table`],
    [
      'a column named __proto__',
      changed(() => {}).replace('"workspaces":[{', '"workspaces":[{"__proto__":{"credits":1},'),
      (f) => `${f}: field tables.workspaces.0.__proto__: unknown column`,
    ],
    [
      'rows that do not fit their table',
      JSON.stringify({ ...valid(), tables: { agents: [{ colour: 'red' }] } }),
      (f) => `${f}: tables.agents.0.id: required; and 7 other faults`,
    ],
    // Rows the service cannot read (issue 24): refused naming the row and the field.
    [
      'a key whose scopes are not a JSON array',
      changed((doc) => {
        doc.tables.api_keys[0].scopes = 'nope';
      }),
      (f) => `${f}: tables.api_keys.0.scopes (${written.tables.api_keys[0].id}): must be JSON text: a JSON array of scopes`,
    ],
    [
      'a workspace whose caps are not JSON',
      changed((doc) => {
        doc.tables.workspaces[0].caps = '{';
      }),
      (f) => `${f}: tables.workspaces.0.caps (${written.tables.workspaces[0].id}): must be JSON text`,
    ],
    [
      'a clock past any date',
      changed((doc) => {
        doc.clock = { frozen: true, value: 1e17 };
      }),
      (f) => `${f}: clock.value: puts the clock at 100000000000000000, outside 1970 to the year 9000`,
    ],
    [
      'an id generator at Infinity',
      changed((doc) => {
        // biome-ignore lint/correctness/noPrecisionLoss: 1e309 is the point: JSON reads it as Infinity
        doc.ids.time = 1e309;
      }).replace('"time":null', '"time":1e309'),
      (f) => `${f}: ids.time: must be whole milliseconds`,
    ],
  ];

  it('an endless file (/dev/zero) is refused once past 64 MiB, as PUT /_emulator/state refuses a larger body (D-1115)', async () => {
    const refused = await runToEnd(['--import', '/dev/zero', '--port', '0'], { track: running });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe('svc-emulator: /dev/zero is larger than 64 MiB, the most a state document may be');
  });

  for (const [what, content, message] of cases) {
    it(`${what}: a new --db file is not created, an existing one is not changed`, async () => {
      const file = join(dir, `${what.replaceAll(' ', '-')}.json`);
      if (content !== undefined) writeFileSync(file, content);

      const fresh = tempDbPath();
      const refused = await runToEnd(['--import', file, '--db', fresh, '--port', '0'], { track: running });
      expect(refused.code).toBe(1);
      const lines = refused.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]!.startsWith(`svc-emulator: ${message(file)}`), lines[0]).toBe(true);
      expect(existsSync(fresh)).toBe(false);
      expect(refused.stdout).toBe('');

      const kept = tempDbPath();
      const made = await start(['--db', kept, '--fixtures', 'none']);
      await stop(made.child);
      const before = fileDigest(kept);
      const again = await runToEnd(['--import', file, '--db', kept, '--port', '0'], { track: running });
      expect(again.code).toBe(1);
      expect(fileDigest(kept)).toBe(before);
    });
  }

  it('an --export-on-exit path that cannot be written stops the start at once', async () => {
    const run = await runToEnd(['--export-on-exit', join(dir, 'no-such-dir', 'state.json'), '--port', '0'], { track: running });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      `svc-emulator: --export-on-exit ${join(dir, 'no-such-dir', 'state.json')}: cannot write in ${join(dir, 'no-such-dir')}: ENOENT`,
    );
  });
});
