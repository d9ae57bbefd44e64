import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { API_TYPES_FILE, renderApiTypes } from '../../scripts/api-types.js';
import { send } from '../support/client.js';
import { fileEmulator } from '../support/emulator.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CONSUMER = join(ROOT, 'test', 'examples', 'typed-calls.test.ts');
const TMP = join(ROOT, '.vitest-tmp', `typecheck-${process.pid}`);
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const emulator = await fileEmulator();

/** Runs tsc (strict) on files that import the package by name, as a consumer would: against dist. */
async function typecheck(files: string[]): Promise<{ file: string; line: number; message: string }[]> {
  mkdirSync(TMP, { recursive: true });
  const tsconfig = {
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2023'],
      types: ['node'],
      skipLibCheck: true,
      verbatimModuleSyntax: true,
    },
    files,
  };
  writeFileSync(join(TMP, 'tsconfig.json'), JSON.stringify(tsconfig));
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const run = await promisify(execFile)(process.execPath, [tsc, '-p', join(TMP, 'tsconfig.json'), '--pretty', 'false']).catch((e: { stdout: string }) => e);
  return run.stdout
    .split('\n')
    .map((line) => /^(.+?)\((\d+),\d+\): error (TS\d+: .*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ file: m[1]!, line: Number(m[2]), message: m[3]! }));
}

describe('generated API types', () => {
  it('emulator/api-types.ts is what openapi-typescript makes of the served /v1/openapi.json (npm run build regenerates it)', async () => {
    const served = (await send(emulator, 'GET', '/v1/openapi.json')).body;
    const fresh = await renderApiTypes(served);
    // toBe on 200 kB would print both; compare and name the fix instead.
    expect(fresh === readFileSync(API_TYPES_FILE, 'utf8'), 'emulator/api-types.ts is stale: run npm run build').toBe(true);
    expect(fresh).toContain('"/v1/agents/{agentId}": {');
  });

  it('a consumer file type-checks under strict against the built package, and each wrong field is a compile error', { timeout: 120_000 }, async () => {
    expect(existsSync(join(ROOT, 'dist', 'emulator', 'api-types.d.ts')), 'dist is missing: run npm run build').toBe(true);
    // The same file with every `@ts-expect-error` turned into a plain comment, line for line.
    const source = readFileSync(CONSUMER, 'utf8');
    const expected = source.split('\n').flatMap((line, i) => (line.includes('// @ts-expect-error') ? [i + 2] : []));
    expect(expected.length).toBeGreaterThanOrEqual(6);
    mkdirSync(TMP, { recursive: true });
    const loose = join(TMP, 'typed-calls.loose.ts');
    writeFileSync(loose, source.replaceAll('// @ts-expect-error', '// was expected to fail:'));

    const errors = await typecheck([CONSUMER, loose]);
    expect(errors.filter((e) => !e.file.endsWith('typed-calls.loose.ts'))).toEqual([]);
    const lines = [...new Set(errors.map((e) => e.line))].sort((a, b) => a - b);
    expect(lines, JSON.stringify(errors, null, 1)).toEqual(expected);
    expect(errors.map((e) => e.message).join('\n')).toMatch(/'nam' does not exist|Object literal may only specify known properties/);
  });

  it("a problem's errors type the slug suggestion svc.project.slug_taken sends (CONTRACT), so a consumer reads it without a cast", {
    timeout: 120_000,
  }, async () => {
    mkdirSync(TMP, { recursive: true });
    const file = join(TMP, 'suggestion.ts');
    writeFileSync(
      file,
      [
        "import type { components } from 'svc-emulator/emulator';",
        "type Item = NonNullable<components['schemas']['Problem']['errors']>[number];",
        "const taken: Item = { field: 'slug', reason: 'taken', suggestion: 'acme-coffee-2' };",
        'export const suggestion: string | undefined = taken.suggestion;',
        '',
      ].join('\n'),
    );
    expect(await typecheck([file])).toEqual([]);
  });
});
