import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../emulator/package-info.js';

// Node 20 aborts the whole process (exit 134, "IsGraphAsync must be used on an
// instantiated module") when a worker thread is ended while a CommonJS dependency
// `require()`s an ES module for the first time: the pool ends threads on close and on a
// time limit, and one CI run of `exec` died so (D-1203). A `require()` that finds the
// module already imported compiles and instantiates nothing, so no thread can end inside
// that step. Node's own loader log says which kind each `require()` of an ES module was.
// piscina's own `require()` of the worker module is the one left: a closing pool lets the
// running tasks end first (up to 5 s), and a time limit counts from the task's start
// (D-1225, `test/platform/worker-pool.test.ts`).
describe('the modules the worker threads load', () => {
  const dist = join(packageRoot(), 'dist');
  const workers = readdirSync(dist).filter((f) => f.endsWith('.worker.js'));

  it('finds every ES module a CommonJS dependency requires already imported', () => {
    expect(workers).toContain('extract.worker.js');
    const imports = workers.map((f) => `await import(${JSON.stringify(pathToFileURL(join(dist, f)).href)});`).join('\n');
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', imports], {
      env: { ...process.env, NODE_DEBUG: 'esm', NODE_OPTIONS: '' },
      encoding: 'utf8',
      // Node 24's loader log prints each job found whole: 1.1 MB, past spawnSync's 1 MiB default.
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(run.status, run.stderr.slice(-2000)).toBe(0);
    const requires = run.stderr.split('\n').filter((l) => l.includes('importSyncForRequire'));
    // html-encoding-sniffer requires @exodus/bytes: the line is there, with the job found.
    expect(requires.some((l) => l.includes('html-encoding-sniffer') && l.includes('encoding-lite'))).toBe(true);
    const fresh = requires.filter((l) => /\sundefined\s*$/.test(l));
    expect(fresh).toEqual([]);
  });
});
