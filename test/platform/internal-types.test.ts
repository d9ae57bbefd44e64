import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compile, expectMarkedErrors, markedErrors, withoutMarkers } from '../support/type-markers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SOURCE = join(import.meta.dirname, 'internal-types.ts');
const TMP = join(ROOT, '.vitest-tmp', `internal-types-${process.pid}`);
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

describe('the types inside the service', () => {
  it('refuse a wrong route parameter, an undeclared status or body, and a wrong worker task, input or result', { timeout: 300_000 }, async () => {
    const source = readFileSync(SOURCE, 'utf8');
    const expected = markedErrors(source, 'internal-types.ts');
    expect(expected.length).toBeGreaterThanOrEqual(9);
    mkdirSync(TMP, { recursive: true });
    // The copy imports the sources by absolute path; the project's own compiler options apply.
    const loose = join(TMP, 'internal-types.loose.ts');
    writeFileSync(loose, withoutMarkers(source).replaceAll("from '../../src/", `from '${ROOT}/src/`));
    const tsconfig = join(TMP, 'tsconfig.json');
    writeFileSync(tsconfig, JSON.stringify({ extends: join(ROOT, 'tsconfig.json'), compilerOptions: { noEmit: true }, include: [], files: [SOURCE, loose] }));
    const errors = await compile(join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), tsconfig, ROOT);
    expectMarkedErrors(errors, { written: 'internal-types.ts', loose: 'internal-types.loose.ts' }, expected);
  });
});
