import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lexer, type Tokens } from 'marked';
import { describe, expect, it, vi } from 'vitest';
import { FLAGS, type FlagSpec } from '../../emulator/cli/flags.js';
import { EMULATOR_OPTION_NAMES } from '../../emulator/options-schema.js';
import { packageRoot } from '../../emulator/package-info.js';

const read = (path: string) => readFileSync(join(packageRoot(), path), 'utf8');
const example = (name: string) => read(join('test', 'examples', name));
const quotes = (doc: string, name: string) => read(doc).includes(`\`\`\`ts\n${example(name)}\`\`\``);

describe('TypeScript examples in README.md and docs/', () => {
  it('quote the example files verbatim (the vitest ones run as tests of their own)', () => {
    expect(quotes('README.md', 'vitest-helper.test.ts'), 'README quotes test/examples/vitest-helper.test.ts').toBe(true);
    for (const name of [
      'library.example.ts',
      'vitest-helper.test.ts',
      'vitest-concurrent.test.ts',
      'msw-app.test.ts',
      'typed-calls.test.ts',
      'openapi-fetch.test.ts',
      'plug-ins.test.ts',
    ]) {
      expect(quotes('docs/testing.md', name), `docs/testing.md quotes test/examples/${name}`).toBe(true);
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

  it('README.md stays a front page', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(200);
  });
});

describe('docs/configuration.md', () => {
  const configuration = read('docs/configuration.md');

  it('has every CLI flag and its environment variable (from the one table the CLI reads)', () => {
    const flags = Object.entries(FLAGS) as [string, FlagSpec][];
    expect(flags.length).toBeGreaterThan(10);
    for (const [name, flag] of flags) {
      expect(configuration, name).toContain(`\`--${name}`);
      if (flag.env) expect(configuration, flag.env).toContain(`| \`${flag.env}\` | \`--${name}\``);
    }
  });

  it('has every createEmulator option (from the schema that checks them)', () => {
    for (const option of EMULATOR_OPTION_NAMES) expect(configuration, option).toContain(`| \`${option}\` |`);
  });
});

describe('the fixture format', () => {
  it('fixtures/fixture.schema.json is the JSON Schema of the validating schema (regenerate: node --import tsx emulator/fixture-schema.ts)', async () => {
    const { fixtureJsonSchema } = await import('../../emulator/fixture-schema.js');
    const committed = JSON.parse(read('fixtures/fixture.schema.json'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(fixtureJsonSchema())));
  });

  it('the bundled demo and the examples of docs/demos-and-sites.md validate against it', async () => {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const validate = new Ajv2020({ strict: false }).compile(JSON.parse(read('fixtures/fixture.schema.json')));
    const examples = lexer(read('docs/demos-and-sites.md'))
      .filter((t): t is Tokens.Code => t.type === 'code' && (t as Tokens.Code).lang === 'json')
      .map((t) => t.text);
    // The file a shell example writes with a heredoc (<<'JSON' ... JSON).
    const guide = read('docs/demos-and-sites.md');
    const start = guide.indexOf("<<'JSON'\n") + "<<'JSON'\n".length;
    const inShell = guide.slice(start, guide.indexOf('\nJSON\n', start));
    expect(examples).toHaveLength(1);
    for (const doc of [read('fixtures/demo.json'), ...examples, inShell]) {
      expect(validate(JSON.parse(doc)), JSON.stringify(validate.errors)).toBe(true);
    }
  });
});
