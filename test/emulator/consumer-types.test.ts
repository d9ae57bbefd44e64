import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { compile, expectMarkedErrors, markedErrors, withoutMarkers, type Diagnostic } from '../support/type-markers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CONSUMER = join(import.meta.dirname, 'consumer.ts');
const EXAMPLES = join(ROOT, 'test', 'examples');
const run = promisify(execFile);
const project = mkdtempSync(join(tmpdir(), 'svc-emulator-consumer-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

/**
 * A fresh project outside this checkout with the packed package installed: the tarball
 * `npm pack` makes of `dist/` as built, unpacked where `npm install` puts it, and the
 * package's declared dependencies and peers (plus the consumer's own `typescript`,
 * `@types/node` and `openapi-fetch`) linked from this checkout's `node_modules`, so that
 * nothing resolves that a real install would not give it (decisions, D-803).
 */
async function installPacked(): Promise<void> {
  const packs = join(project, 'packs');
  mkdirSync(packs);
  // `--ignore-scripts`: dist/ as built (`npm test` builds it first), not a second build.
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packs], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
  const installed = join(project, 'node_modules', 'svc-emulator');
  mkdirSync(installed, { recursive: true });
  await run('tar', ['-xzf', join(packs, filename), '-C', installed, '--strip-components=1']);
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  // The consumer's own: its compiler, Node's types, and the client docs/testing.md hands `emulator.fetch` to.
  const names = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    'typescript',
    '@types/node',
    'openapi-fetch',
    // A Jest user's runner (D-1231).
    'jest',
  ]);
  for (const name of names) {
    const link = join(project, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), link, 'dir');
  }
  const dependencies = { 'svc-emulator': `file:packs/${filename}` };
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies }, null, 2));
}

/** The libs of a Node project, and of a browser app whose tests run in Node (MSW's users). */
const LIBS = { node: ['ES2023'], browser: ['ES2023', 'DOM', 'DOM.Iterable'] };

/**
 * `tsc --strict` in the consumer project, with its own TypeScript. `types`: the project's
 * list of global types (`[]` as `tsc --init` writes it since TypeScript 5.9, and as
 * TypeScript 7 reads an absent one; `undefined`: every `@types` package installed).
 */
async function compileConsumer(
  files: string[],
  lib: string[],
  options: { types?: string[] | undefined; skipLibCheck?: boolean; exactOptionalPropertyTypes?: boolean } = {},
): Promise<Diagnostic[]> {
  const types = 'types' in options ? options.types : ['node'];
  const tsconfig = {
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      // As most projects do: checking every library's declarations (msw's want the DOM
      // lib) takes five times as long. A type of ours that resolved to `any` would still
      // show, as an unused @ts-expect-error.
      lib,
      ...(types && { types }),
      verbatimModuleSyntax: true,
      skipLibCheck: options.skipLibCheck ?? true,
      ...(options.exactOptionalPropertyTypes && { exactOptionalPropertyTypes: true }),
    },
    files,
  };
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  return compile(join(project, 'node_modules', 'typescript', 'bin', 'tsc'), join(project, 'tsconfig.json'), project);
}

/** Installed once for the file: both tests read the same packed package. */
let packed: Promise<void> | undefined;
const installedOnce = () => (packed ??= installPacked());

/**
 * What a user's test does with the package at run time, from the consumer project: each
 * entry imported by its name (the bundled library, D-1072), one class whatever the entry,
 * and the work that runs in the package's worker threads (a page read, the bilingual
 * lexicon, a hosted site's Markdown) ending well. It prints one JSON line.
 */
const RUNTIME = `
import { readFileSync } from 'node:fs';
import * as main from 'svc-emulator';
import * as emulatorEntry from 'svc-emulator/emulator';
import { emulatorHandlers } from 'svc-emulator/msw';
import { setupEmulator } from 'svc-emulator/vitest';
const logged = [];
const emulator = await main.createEmulator({ fixtures: 'demo', seed: 1, log: (message) => logged.push(String(message)) });
const key = 'svc_test_DemoFullAccessKey000000000000001_0k1rIW';
const auth = { authorization: 'Bearer ' + key };
const agents = await (await emulator.fetch(new Request('http://localhost/v1/agents', { headers: auth }))).json();
const form = new FormData();
form.set('file', new File(['<html><body><main><h1>Parking</h1><p>Guests park free of charge in the garage on Calle Mayor.</p></main></body></html>'], 'parking.html', { type: 'text/html' }));
form.set('agentId', agents.data[0].id);
const upload = await emulator.fetch(new Request('http://localhost/v1/knowledge/uploads', { method: 'POST', headers: auth, body: form }));
await emulator.drain();
const source = await (await emulator.fetch(new Request('http://localhost/v1/knowledge/sources/' + (await upload.json()).id, { headers: auth }))).json();
const query = await (await emulator.fetch(new Request('http://localhost/v1/agents/' + agents.data[0].id + '/query', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'where can guests park?' }) }))).json();
const site = await emulator.fetch(new Request('http://cafe-aurora.localhost/'));
const video = new FormData();
video.set('file', new File([readFileSync(VIDEO_PATH)], 'clip.mp4', { type: 'video/mp4' }));
const asset = await (await emulator.fetch(new Request('http://localhost/v1/assets', { method: 'POST', headers: auth, body: video }))).json();
await emulator.close();
console.log(JSON.stringify({
  same: main.createEmulator === emulatorEntry.createEmulator && main.Emulator === emulatorEntry.Emulator,
  entries: [typeof emulatorHandlers, typeof setupEmulator],
  status: source.status,
  chunks: source.chunkCount,
  firstPassage: query.passages[0]?.sourceId === source.id,
  site: [site.status, (await site.text()).includes('</html>')],
  video: [asset.kind, asset.durationSeconds],
  logged,
}));
`;

/** What a CommonJS user's script does (a Mocha suite, a plain Node script): every entry by `require()`. */
const REQUIRED = `
const main = require('svc-emulator');
const emulatorEntry = require('svc-emulator/emulator');
const { emulatorHandlers } = require('svc-emulator/msw');
const { setupEmulator } = require('svc-emulator/vitest');
(async () => {
  const emulator = await main.createEmulator({ fixtures: 'demo', seed: 1 });
  const auth = { authorization: 'Bearer svc_test_DemoFullAccessKey000000000000001_0k1rIW' };
  const agents = await emulator.fetch(new Request('http://localhost/v1/agents', { headers: auth }));
  await emulator.close();
  console.log(JSON.stringify({
    same: main.createEmulator === emulatorEntry.createEmulator && main.Emulator === emulatorEntry.Emulator,
    entries: [typeof emulatorHandlers, typeof setupEmulator],
    agents: agents.status,
  }));
})();
`;

/**
 * A Jest user's test file (Jest's ESM mode, as docs/testing.md says): the package loads
 * in Jest's module runtime (D-1231), and a document is read, drained and answered under
 * Jest's fake timers, modern and legacy, which replace every global timer and
 * `queueMicrotask` (D-1230).
 */
const JEST_TEST = `
import { afterEach, expect, jest, test } from '@jest/globals';
import { createEmulator } from 'svc-emulator';

async function flow() {
  const emulator = await createEmulator({ seed: 1 });
  const { apiKey } = await emulator.createWorkspace();
  const headers = { authorization: 'Bearer ' + apiKey.secret, 'content-type': 'application/json' };
  const agent = await (await emulator.fetch('/v1/agents', { method: 'POST', headers, body: JSON.stringify({ name: 'Desk', identity: { businessName: 'Acme' } }) })).json();
  const form = new FormData();
  form.set('file', new File(['<main><h1>Opening hours</h1><p>We open from 9:00 to 17:00 on weekdays.</p></main>'], 'hours.html', { type: 'text/html' }));
  form.set('agentId', agent.id);
  expect((await emulator.fetch('/v1/knowledge/uploads', { method: 'POST', headers: { authorization: headers.authorization }, body: form })).status).toBe(202);
  for (const text of ['Shipping takes two days.', 'Returns are free for 30 days.']) {
    const added = await emulator.fetch('/v1/knowledge/text', { method: 'POST', headers, body: JSON.stringify({ title: text, text, agentId: agent.id }) });
    expect(added.status).toBe(202);
  }
  expect((await emulator.fetch('/_emulator/queue/drain', { method: 'POST' })).status).toBe(200);
  const chat = await emulator.fetch('/v1/agents/' + agent.id + '/chat', { method: 'POST', headers, body: JSON.stringify({ message: 'When do you open?' }) });
  expect((await chat.json()).reply).toContain('9:00');
  const stream = await emulator.fetch('/v1/agents/' + agent.id + '/chat', { method: 'POST', headers: { ...headers, accept: 'text/event-stream' }, body: JSON.stringify({ message: 'How long does shipping take?' }) });
  expect(await stream.text()).toContain('event: done');
  await emulator.close();
}

afterEach(() => jest.useRealTimers());
test('real timers', flow, 30000);
test('modern fake timers', async () => { jest.useFakeTimers(); await flow(); }, 30000);
test('legacy fake timers', async () => { jest.useFakeTimers({ legacyFakeTimers: true }); await flow(); }, 30000);
`;

describe('a consumer project', () => {
  it('runs the packed package: every entry by its name, and the work of its worker threads', { timeout: 300_000 }, async () => {
    expect(existsSync(join(ROOT, 'dist', 'lib-main.js')), 'dist is missing: run npm run build').toBe(true);
    await installedOnce();
    writeFileSync(join(project, 'runtime.mjs'), RUNTIME.replace('VIDEO_PATH', JSON.stringify(join(ROOT, 'test', 'fixtures', 'assets', 'video-audio-3s.mp4'))));
    const { stdout } = await run(process.execPath, ['runtime.mjs'], { cwd: project, maxBuffer: 16 * 1024 * 1024 });
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({
      same: true,
      entries: ['function', 'function'],
      status: 'ready',
      chunks: 1,
      firstPassage: true,
      site: [200, true],
      // A video's length, read by the bundled mediabunny (no dependency of the package, D-1152).
      video: ['video', 3],
      logged: [],
    });
  });

  it("compiles in a project that lists no global types, or every @types package it has, checking every library's declarations (D-1152)", {
    timeout: 300_000,
  }, async () => {
    await installedOnce();
    writeFileSync(
      join(project, 'plain.ts'),
      "import { createEmulator } from 'svc-emulator';\nconst emulator = await createEmulator({ seed: 1 });\nawait emulator.close();\n",
    );
    // `types: []` (tsc --init since TypeScript 5.9, TypeScript 7's default): the package's
    // declarations name Node's types themselves. No list: TypeScript loads every @types
    // package installed, and a dependency's (mediabunny's @types/dom-webcodecs) clashed
    // with the DOM lib, so mediabunny is bundled, no dependency.
    expect(await compileConsumer(['plain.ts'], LIBS.node, { types: [], skipLibCheck: false })).toEqual([]);
    expect(await compileConsumer(['plain.ts'], LIBS.browser, { types: undefined, skipLibCheck: false })).toEqual([]);
    expect(existsSync(join(project, 'node_modules', '@types', 'dom-webcodecs'))).toBe(false);
  });

  it('takes options read from the environment as they are under exactOptionalPropertyTypes: an unset one is undefined (D-1155)', {
    timeout: 300_000,
  }, async () => {
    await installedOnce();
    writeFileSync(
      join(project, 'exact.ts'),
      [
        "import { createEmulator } from 'svc-emulator';",
        "import { setupEmulator } from 'svc-emulator/vitest';",
        'const emulator = await createEmulator({ seed: process.env.SEED, db: process.env.DB, adminToken: process.env.TOKEN, siteDomain: process.env.SITES, lexiconWaitMs: undefined });',
        'await emulator.close();',
        'export const ctx = setupEmulator({ seed: process.env.SEED, scopes: undefined });',
        '',
      ].join('\n'),
    );
    expect(await compileConsumer(['exact.ts'], LIBS.node, { exactOptionalPropertyTypes: true })).toEqual([]);
  });

  it('sends a value that may be unset as it is under exactOptionalPropertyTypes: a query cursor, a body field, an init option, in the typed client and openapi-fetch (D-1162)', {
    timeout: 300_000,
  }, async () => {
    await installedOnce();
    writeFileSync(
      join(project, 'exact-calls.ts'),
      [
        "import createFetchClient from 'openapi-fetch';",
        "import { createClient, createEmulator, type paths } from 'svc-emulator/emulator';",
        'const emulator = await createEmulator({ seed: 1 });',
        'const { apiKey } = await emulator.createWorkspace();',
        'const api = createClient(emulator, apiKey.secret);',
        'let cursor: string | undefined;',
        'do {',
        "  const page = await api.GET('/v1/agents', { params: { query: { after: cursor, limit: undefined } }, headers: undefined, parseAs: undefined });",
        '  cursor = page.ok ? (page.body.nextCursor ?? undefined) : undefined;',
        '} while (cursor);',
        "const created = await api.POST('/v1/agents', { body: { name: 'Ada', identity: { businessName: 'Acme', description: process.env.ABOUT } } });",
        'if (created.status === 201) {',
        "  await api.PATCH('/v1/agents/{agentId}', { params: { path: { agentId: created.body.id } }, body: { name: process.env.NAME, identity: undefined } });",
        "  await api.POST('/v1/agents/{agentId}/query', { params: { path: { agentId: created.body.id } }, body: { query: 'parking', topics: undefined, limit: undefined } });",
        "  const text = await api.GET('/v1/me', { parseAs: process.env.RAW ? 'text' : undefined });",
        '  // @ts-expect-error a parseAs that may be unset gives the JSON form or the text: not a string alone',
        '  const raw: string = text.body;',
        '  void raw;',
        '}',
        "const fetchApi = createFetchClient<paths>({ baseUrl: 'http://localhost', fetch: emulator.fetch });",
        "await fetchApi.GET('/v1/agents', { params: { query: { after: cursor, before: undefined } } });",
        "await fetchApi.POST('/v1/knowledge/text', { body: { title: 'Parking', text: 'Free parking', topics: undefined, agentId: process.env.AGENT } });",
        'await emulator.close();',
        '',
      ].join('\n'),
    );
    expect(await compileConsumer(['exact-calls.ts'], LIBS.node, { exactOptionalPropertyTypes: true })).toEqual([]);
  });

  it("runs under Jest's ESM runtime, also under Jest's fake timers, modern and legacy (D-1230, D-1231)", { timeout: 300_000 }, async () => {
    await installedOnce();
    const dir = join(project, 'jest');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'emulator.test.mjs'), JEST_TEST);
    writeFileSync(join(dir, 'jest.config.json'), JSON.stringify({ rootDir: dir, testMatch: ['**/*.test.mjs'], transform: {} }));
    const jest = join(project, 'node_modules', 'jest', 'bin', 'jest.js');
    const result = await run(process.execPath, ['--experimental-vm-modules', jest, '--config', 'jest.config.json', '--json', '--ci'], {
      cwd: dir,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, NODE_OPTIONS: '' },
    }).catch((error: { stdout?: string; stderr?: string }) => error);
    const report = JSON.parse(result.stdout || '{}') as { numPassedTests?: number; testResults?: { message: string }[] };
    expect(report.numPassedTests, `${report.testResults?.map((r) => r.message).join('\n')}\n${result.stderr?.slice(-3000)}`).toBe(3);
  });

  it('loads every entry by require() from a CommonJS file, one class whatever the entry (D-1125)', { timeout: 300_000 }, async () => {
    await installedOnce();
    writeFileSync(join(project, 'runtime.cjs'), REQUIRED);
    const { stdout, stderr } = await run(process.execPath, ['runtime.cjs'], { cwd: project, maxBuffer: 16 * 1024 * 1024 });
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({ same: true, entries: ['function', 'function'], agents: 200 });
    // Node 20.19 and later load an ES module by require() without a flag or a warning.
    expect(stderr).toBe('');
  });

  it("compiles what users write, and the docs' examples, against the packed package under tsc --strict (a Node project and a browser app's, DOM lib), and refuses each mistake marked in it", {
    timeout: 300_000,
  }, async () => {
    expect(existsSync(join(ROOT, 'dist', 'emulator', 'main.d.ts')), 'dist is missing: run npm run build').toBe(true);
    await installedOnce();
    const source = readFileSync(CONSUMER, 'utf8');
    const expected = markedErrors(source, 'consumer.ts');
    expect(expected.length).toBeGreaterThanOrEqual(12);
    writeFileSync(join(project, 'consumer.ts'), source);
    writeFileSync(join(project, 'loose.ts'), withoutMarkers(source));
    // The TypeScript examples README.md and docs/testing.md quote, as they are.
    cpSync(EXAMPLES, join(project, 'examples'), { recursive: true });
    const examples = readdirSync(join(project, 'examples'))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `examples/${name}`);
    expect(examples.length).toBeGreaterThanOrEqual(6);
    for (const [kind, lib] of Object.entries(LIBS)) {
      const errors = await compileConsumer(['consumer.ts', 'loose.ts', ...examples], lib);
      expect(
        errors.filter((e) => e.file.startsWith('examples/')),
        `${kind} project`,
      ).toEqual([]);
      expectMarkedErrors(errors, { written: 'consumer.ts', loose: 'loose.ts' }, expected);
    }
  });

  it('finds every entry and its types under the module resolution of a bundler project, and of an older one that reads no exports map (node10)', {
    timeout: 300_000,
  }, async () => {
    await installedOnce();
    writeFileSync(join(project, 'entries.ts'), ENTRIES);
    for (const moduleResolution of ['bundler', 'node10']) {
      const tsconfig = {
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution,
          lib: LIBS.node,
          types: ['node'],
          skipLibCheck: true,
        },
        files: ['entries.ts'],
      };
      writeFileSync(join(project, `tsconfig.${moduleResolution}.json`), JSON.stringify(tsconfig, null, 2));
      // Every line tsc prints counts, an option it refuses too (no file named): it must print nothing.
      const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
      const printed = await run(process.execPath, [tsc, '-p', `tsconfig.${moduleResolution}.json`, '--pretty', 'false'], { cwd: project }).then(
        ({ stdout }) => stdout,
        (error: { stdout: string }) => error.stdout || String(error),
      );
      expect(printed.trim(), moduleResolution).toBe('');
    }
  });
});

/** Each entry by its name, one typed thing from each: a name that resolved to nothing would be an error here. */
const ENTRIES = `
import { createEmulator, type Emulator } from 'svc-emulator';
import type { components, TypedCalls } from 'svc-emulator/emulator';
import { emulatorHandlers } from 'svc-emulator/msw';
import { setupEmulator } from 'svc-emulator/vitest';
type Agent = components['schemas']['Agent'];
export async function check(api: TypedCalls): Promise<[Emulator, Agent | undefined, unknown, unknown]> {
  const created = await api.POST('/v1/agents', { body: { name: 'Ada', identity: { businessName: 'Acme' } } });
  return [await createEmulator({ seed: 1 }), created.status === 201 ? created.data : undefined, emulatorHandlers, setupEmulator];
}
`;
