import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { packageRoot } from '../../emulator/package-info.js';

const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');
const example = (name: string) => readFileSync(join(packageRoot(), 'test', 'examples', name), 'utf8');

describe('README examples', () => {
  it('quote the example files verbatim (the vitest ones run as tests of their own)', () => {
    for (const name of ['library.example.ts', 'vitest-helper.test.ts', 'msw-app.test.ts', 'typed-calls.test.ts', 'openapi-fetch.test.ts']) {
      expect(readme, `README quotes test/examples/${name}`).toContain('```ts\n' + example(name) + '```');
    }
  });

  it('the library example runs and prints what its comments say', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await import('../examples/library.example.js');
      expect(log.mock.calls).toEqual([[201, 'Ada', '2026-01-01T00:00:00.000Z'], ['2026-01-01T00:01:00.000Z']]);
    } finally {
      log.mockRestore();
    }
  });
});

describe('the fixture format', () => {
  it('fixtures/fixture.schema.json is the JSON Schema of the validating schema (regenerate: node --import tsx emulator/fixture-schema.ts)', async () => {
    const { fixtureJsonSchema } = await import('../../emulator/fixture-schema.js');
    const committed = JSON.parse(readFileSync(join(packageRoot(), 'fixtures', 'fixture.schema.json'), 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(fixtureJsonSchema())));
  });

  it('the bundled demo validates against it', async () => {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const schema = JSON.parse(readFileSync(join(packageRoot(), 'fixtures', 'fixture.schema.json'), 'utf8'));
    const demo = JSON.parse(readFileSync(join(packageRoot(), 'fixtures', 'demo.json'), 'utf8'));
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate(demo), JSON.stringify(validate.errors)).toBe(true);
  });
});
