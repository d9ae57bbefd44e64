import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { packageRoot } from '../../emulator/package-info.js';

const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');
const example = (name: string) => readFileSync(join(packageRoot(), 'test', 'examples', name), 'utf8');

describe('README examples', () => {
  it('quote the example files verbatim (the vitest one runs as a test of its own)', () => {
    for (const name of ['library.example.ts', 'vitest-helper.test.ts']) {
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
