import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const CONSUMER = join(import.meta.dirname, 'consumer.ts');
const run = promisify(execFile);
const project = mkdtempSync(join(tmpdir(), 'svc-emulator-consumer-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

/**
 * A fresh project outside this checkout with the packed package installed: the tarball
 * `npm pack` makes of `dist/` as built, unpacked where `npm install` puts it, and the
 * package's declared dependencies and peers (plus `typescript` and `@types/node`, the
 * consumer's own) linked from this checkout's `node_modules`, so that nothing resolves
 * that a real install would not give it (decisions, D-803).
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
  const names = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {}), 'typescript', '@types/node'];
  for (const name of names) {
    const link = join(project, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), link, 'dir');
  }
  const dependencies = { 'svc-emulator': `file:packs/${filename}` };
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies }, null, 2));
}

interface Diagnostic {
  file: string;
  line: number;
  code: string;
}

/** `tsc --strict` in the consumer project, with its own TypeScript; answers every error. */
async function compile(files: string[]): Promise<Diagnostic[]> {
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
  const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await run(process.execPath, [tsc, '-p', join(project, 'tsconfig.json'), '--pretty', 'false'], { cwd: project, maxBuffer: 64 * 1024 * 1024 })
    .catch((error: { stdout: string }) => error);
  return result.stdout
    .split('\n')
    .map((line) => /^(.+?)\((\d+),\d+\): error (TS\d+):/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ file: m[1]!, line: Number(m[2]), code: m[3]! }));
}

describe('a consumer project', () => {
  it('compiles what users write against the packed package under tsc --strict, and refuses each mistake marked in it', { timeout: 300_000 }, async () => {
    expect(existsSync(join(ROOT, 'dist', 'emulator', 'main.d.ts')), 'dist is missing: run npm run build').toBe(true);
    await installPacked();
    const source = readFileSync(CONSUMER, 'utf8');
    // `// @ts-expect-error TS2353 why`: the next line must fail with that code once the marker is gone.
    const expected = source.split('\n').flatMap((line, i) => {
      const marker = /^\s*\/\/ @ts-expect-error (TS\d+) /.exec(line);
      if (/^\s*\/\/ @ts-expect-error/.test(line) && !marker) throw new Error(`consumer.ts:${i + 1}: name the error a @ts-expect-error stands for`);
      return marker ? [{ line: i + 2, code: marker[1]! }] : [];
    });
    expect(expected.length).toBeGreaterThanOrEqual(12);
    writeFileSync(join(project, 'consumer.ts'), source);
    writeFileSync(join(project, 'loose.ts'), source.replace(/^(\s*)\/\/ @ts-expect-error/gm, '$1// was refused:'));

    const errors = await compile(['consumer.ts', 'loose.ts']);
    // As written: no error at all (an unused @ts-expect-error is one, TS2578).
    expect(errors.filter((e) => !e.file.endsWith('loose.ts'))).toEqual([]);
    // Without the markers: exactly the marked lines fail, each with the error it names.
    const loose = errors.filter((e) => e.file.endsWith('loose.ts'));
    expect([...new Set(loose.map((e) => e.line))].sort((a, b) => a - b), JSON.stringify(loose)).toEqual(expected.map((e) => e.line));
    for (const { line, code } of expected) expect(loose.filter((e) => e.line === line).map((e) => e.code), `consumer.ts:${line}`).toContain(code);
  });
});
