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
  const names = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {}), 'typescript', '@types/node', 'openapi-fetch'];
  for (const name of names) {
    const link = join(project, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), link, 'dir');
  }
  const dependencies = { 'svc-emulator': `file:packs/${filename}` };
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies }, null, 2));
}

/** `tsc --strict` in the consumer project, with its own TypeScript. */
async function compileConsumer(files: string[]): Promise<Diagnostic[]> {
  const tsconfig = {
    compilerOptions: {
      strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext',
      // As most projects do: checking every library's declarations (msw's want the DOM
      // lib) takes five times as long. A type of ours that resolved to `any` would still
      // show, as an unused @ts-expect-error.
      lib: ['ES2023'], types: ['node'], verbatimModuleSyntax: true, skipLibCheck: true,
    },
    files,
  };
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  return compile(join(project, 'node_modules', 'typescript', 'bin', 'tsc'), join(project, 'tsconfig.json'), project);
}

describe('a consumer project', () => {
  it('compiles what users write, and the docs\' examples, against the packed package under tsc --strict, and refuses each mistake marked in it', { timeout: 300_000 }, async () => {
    expect(existsSync(join(ROOT, 'dist', 'emulator', 'main.d.ts')), 'dist is missing: run npm run build').toBe(true);
    await installPacked();
    const source = readFileSync(CONSUMER, 'utf8');
    const expected = markedErrors(source, 'consumer.ts');
    expect(expected.length).toBeGreaterThanOrEqual(12);
    writeFileSync(join(project, 'consumer.ts'), source);
    writeFileSync(join(project, 'loose.ts'), withoutMarkers(source));
    // The TypeScript examples README.md and docs/testing.md quote, as they are.
    cpSync(EXAMPLES, join(project, 'examples'), { recursive: true });
    const examples = readdirSync(join(project, 'examples')).filter((name) => name.endsWith('.ts')).map((name) => `examples/${name}`);
    expect(examples.length).toBeGreaterThanOrEqual(6);
    const errors = await compileConsumer(['consumer.ts', 'loose.ts', ...examples]);
    expect(errors.filter((e) => e.file.startsWith('examples/'))).toEqual([]);
    expectMarkedErrors(errors, { written: 'consumer.ts', loose: 'loose.ts' }, expected);
  });
});
