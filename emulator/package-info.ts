import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root, found from this file whether it runs from source or from `dist/`. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'fixtures'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('svc-emulator: package root not found');
    dir = parent;
  }
}

let cached: string | undefined;

/** The package version (`GET /_emulator/health`). */
export function packageVersion(): string {
  cached ??= (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  return cached;
}
