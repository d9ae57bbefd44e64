import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../emulator/package-info.js';
import { CLI, startCli, type RunningCli } from '../support/cli.js';
import { anchorsOf, docFiles, linksOf, missingLines, readDoc, shellBlocks, type ShellBlock } from '../support/doc-blocks.js';
import { postgresForBlock } from '../support/doc-postgres.js';

// Every ```sh block of README.md and docs/*.md runs in bash against a real emulator (the
// built CLI with its defaults: the demo, no seed), as a reader would paste it. The blocks
// say port 4010 and `npx svc-emulator`; the run substitutes the test's port (in the
// expected output too)
// and the built CLI. `npm test` inside a block stands for the reader's own suite: a stub
// on PATH that checks the emulator it was given answers.

const root = packageRoot();
const work = mkdtempSync(join(tmpdir(), 'svc-docs-'));
const bin = join(work, 'bin');
mkdirSync(bin);
// The suites the docs run are written for `exec`: they need the key as well as the URL
// (the background recipe must hand over the same variables).
writeFileSync(
  join(bin, 'npm'),
  `#!/usr/bin/env bash\n[ "$*" = test ] || { echo "the docs test stubs only 'npm test', not: npm $*" >&2; exit 64; }\n` +
    `curl -sf "$SVC_EMULATOR_URL/_emulator/health" > /dev/null || { echo "no emulator at SVC_EMULATOR_URL=$SVC_EMULATOR_URL" >&2; exit 1; }\n` +
    `curl -sf "$SVC_EMULATOR_URL/v1/me" -H "authorization: Bearer \${SVC_EMULATOR_KEY:-}" | grep -q ""$SVC_EMULATOR_WORKSPACE_ID"" ` +
    `|| { echo "SVC_EMULATOR_KEY and SVC_EMULATOR_WORKSPACE_ID do not fit the emulator" >&2; exit 1; }\n` +
    `echo "tests passed against $SVC_EMULATOR_URL"\n`,
);
chmodSync(join(bin, 'npm'), 0o755);
// A block that runs as another user (doc-postgres.ts) reaches its folder and the stub through here.
chmodSync(work, 0o755);
afterAll(() => rmSync(work, { recursive: true, force: true }));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

function runBash(
  script: string,
  cwd: string,
  as: { path?: string; user?: { uid: number; gid: number }; timeoutMs?: number } = {},
): Promise<{ code: number | null; out: string; err: string }> {
  const child: ChildProcess = spawn('bash', ['-c', `set -euo pipefail\n${script}`], {
    cwd,
    env: { ...process.env, PATH: [as.path, bin, process.env.PATH].filter(Boolean).join(':'), ...(as.user && { HOME: cwd }) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    ...as.user,
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), as.timeoutMs ?? 60_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    }),
  );
}

async function runBlock(block: ShellBlock, emulator: RunningCli): Promise<void> {
  const own = block.mode.kind === 'own emulator';
  const cwd = mkdtempSync(join(work, 'block-'));
  const postgres = block.mode.kind === 'own emulator' && block.mode.postgres ? await postgresForBlock(block.mode.postgres, block.code, cwd) : undefined;
  try {
    // Ports the block names (4010, 4011; PostgreSQL's 5432...) become the test's.
    const ports = new Map(postgres?.ports);
    if (!own) ports.set(4010, Number(new URL(emulator.url).port));
    else for (const port of new Set(block.code.match(/\b40[1-9]\d\b/g) ?? [])) ports.set(Number(port), await freePort());
    const withPort = (text: string) => text.replace(/\b(40[1-9]\d|543\d)\b/g, (port) => String(ports.get(Number(port)) ?? port));
    const script = withPort(block.code).replaceAll('npx svc-emulator', `node ${CLI}`);
    // Each block starts from the fixtures, as against a freshly started emulator (curl: a
    // connection of its own, never a kept-alive one the server may be closing).
    expect((await runBash(`curl -sf -o /dev/null -X POST ${emulator.url}/_emulator/reset`, cwd)).code).toBe(0);
    const run = await runBash(script, cwd, postgres && { path: postgres.path, user: postgres.user, timeoutMs: 150_000 });
    const where = `${block.file}:${block.line}\n--- stdout\n${run.out}\n--- stderr\n${run.err}`;
    expect(run.code, `exit status of the block at ${where}`).toBe(0);
    expect(missingLines(block.expected.map(withPort), run.out), `expected output of the block at ${where}`).toEqual([]);
  } finally {
    postgres?.done();
  }
}

it('has curl and jq to run the examples with (apt-get install -y curl jq; .ci/run does)', async () => {
  const run = await runBash('command -v curl && command -v jq', work);
  expect(run.code, run.out + run.err).toBe(0);
});

describe.each(docFiles())('%s', (file) => {
  const blocks = shellBlocks(file);
  let emulator: RunningCli;
  beforeAll(async () => {
    if (blocks.some((b) => b.mode.kind !== 'not run')) emulator = await startCli([]);
  });
  afterAll(() => emulator?.child.kill('SIGTERM'));

  it('keeps its shell blocks where the test finds them, and says why a block is not run', () => {
    const fences = readDoc(file)
      .split('\n')
      .filter((line) => line.trim() === '```sh').length;
    expect(blocks.length, 'every ```sh fence is at the top level, not in a list or quote').toBe(fences);
    for (const block of blocks) if (block.mode.kind === 'not run') expect(block.mode.reason.length, `${file}:${block.line}`).toBeGreaterThan(10);
  });

  for (const block of blocks.filter((b) => b.mode.kind !== 'not run')) {
    const postgres = block.mode.kind === 'own emulator' && block.mode.postgres !== undefined;
    it(`runs the shell block at line ${block.line}`, () => runBlock(block, emulator), postgres ? 180_000 : 90_000);
  }

  it('links only to files and headings that exist', () => {
    for (const href of linksOf(file)) {
      if (/^[a-z]+:/i.test(href)) continue;
      const [path, anchor] = href.split('#') as [string, string | undefined];
      const target = path === '' ? file : join(dirname(file), path);
      expect(existsSync(join(root, target)), `${file} links to ${href}`).toBe(true);
      if (anchor && target.endsWith('.md')) expect([...anchorsOf(target)], `${file} links to ${href}`).toContain(anchor);
    }
  });
});
