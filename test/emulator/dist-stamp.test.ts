import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../emulator/package-info.js';
import { clearStamp, INPUT_DIRS, INPUT_FILES, OUTPUTS, staleness, writeStamp } from '../../scripts/dist-stamp.mjs';

function put(root: string, file: string, text: string): void {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
}

/** A project as the build sees it: a few sources, the root files, and a built dist/ with its stamp. */
function project(): string {
  const root = mkdtempSync(join(tmpdir(), 'svc-emu-stamp-'));
  put(root, 'src/platform/a.ts', 'export const a = 1;\n');
  put(root, 'emulator/cli.ts', 'console.log(1);\n');
  put(root, 'emulator/ui/assets/app.js', 'x\n');
  put(root, 'fixtures/demo.json', '{}\n');
  put(root, 'scripts/demo-state.mjs', '\n');
  for (const file of INPUT_FILES) put(root, file, `{"${file}":1}\n`);
  for (const file of OUTPUTS) put(root, `dist/${file}`, `built ${file}\n`);
  writeStamp(root);
  return root;
}

describe('npm test and npm pack build dist/ only when something that feeds it changed', () => {
  it('current right after a build, and after a change of file times alone (a checkout)', () => {
    const root = project();
    expect(staleness(root)).toBeUndefined();
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'src/platform/a.ts'), later, later);
    expect(staleness(root)).toBeUndefined();
  });

  it('never current after any change that feeds dist/: an edit, a new, removed or renamed file, the lock, the compiler settings, what is installed', () => {
    const changes: [string, (root: string) => void][] = [
      ['edit a source', (r) => writeFileSync(join(r, 'src/platform/a.ts'), 'export const a = 2;\n')],
      ['same size, other bytes', (r) => writeFileSync(join(r, 'src/platform/a.ts'), 'export const b = 1;\n')],
      ['add a file', (r) => put(r, 'emulator/new.ts', '')],
      ['remove a file', (r) => rmSync(join(r, 'fixtures/demo.json'))],
      ['rename a file', (r) => renameSync(join(r, 'emulator/cli.ts'), join(r, 'emulator/cli2.ts'))],
      ['an asset', (r) => writeFileSync(join(r, 'emulator/ui/assets/app.js'), 'y\n')],
      ['a build script', (r) => writeFileSync(join(r, 'scripts/demo-state.mjs'), '//\n')],
      ...INPUT_FILES.map((file): [string, (root: string) => void] => [file, (r) => writeFileSync(join(r, file), '{}\n')]),
    ];
    for (const [what, change] of changes) {
      const root = project();
      change(root);
      expect(staleness(root), what).toBe('sources changed since the last build');
    }
  });

  it('never current when dist/ itself was changed, lost a file, or a build was cut short', () => {
    let root = project();
    writeFileSync(join(root, 'dist/cli.js'), 'edited\n');
    expect(staleness(root)).toBe('dist/ changed since the last build');
    root = project();
    rmSync(join(root, 'dist/demo-state.json'));
    expect(staleness(root)).toBe('dist/demo-state.json is missing');
    // A build clears the stamp first: one cut short leaves none.
    root = project();
    clearStamp(root);
    expect(staleness(root)).toBe('no build stamp');
  });

  it('build-if-stale says which: "dist/ is current, build skipped", or "building dist/ (why) ..." and runs npm run build', () => {
    const root = project();
    copyFileSync(join(packageRoot(), 'scripts/dist-stamp.mjs'), join(root, 'scripts/dist-stamp.mjs'));
    // An npm that notes what it was asked to do.
    const bin = mkdtempSync(join(tmpdir(), 'svc-emu-npm-'));
    put(bin, 'npm', `#!/bin/sh\necho "$*" >> '${join(bin, 'calls')}'\n`);
    chmodSync(join(bin, 'npm'), 0o755);
    const run = () =>
      spawnSync(process.execPath, [join(root, 'scripts/dist-stamp.mjs'), 'build-if-stale'], {
        encoding: 'utf8',
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      });

    writeStamp(root);
    const skipped = run();
    expect(skipped.status).toBe(0);
    expect(skipped.stdout).toBe('dist/ is current, build skipped\n');
    expect(() => readFileSync(join(bin, 'calls'))).toThrow();

    writeFileSync(join(root, 'src/platform/a.ts'), 'changed\n');
    const built = run();
    expect(built.stdout).toBe('building dist/ (sources changed since the last build) ...\n');
    expect(readFileSync(join(bin, 'calls'), 'utf8')).toBe('run build\n');
  });

  it('a build that fails fails build-if-stale with its status (so npm test and npm ci fail), and leaves dist/ stale', () => {
    const root = project();
    copyFileSync(join(packageRoot(), 'scripts/dist-stamp.mjs'), join(root, 'scripts/dist-stamp.mjs'));
    // An npm whose build fails as the real one does: the stamp cleared first, never written.
    const bin = mkdtempSync(join(tmpdir(), 'svc-emu-npm-'));
    put(bin, 'npm', `#!/bin/sh\nrm -f '${join(root, 'dist/.build-stamp.json')}'\necho 'demo state differs' >&2\nexit 3\n`);
    chmodSync(join(bin, 'npm'), 0o755);
    const run = () =>
      spawnSync(process.execPath, [join(root, 'scripts/dist-stamp.mjs'), 'build-if-stale'], {
        encoding: 'utf8',
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      });
    writeFileSync(join(root, 'src/platform/a.ts'), 'changed\n');
    const failed = run();
    expect(failed.status).toBe(3);
    expect(failed.stderr).toContain('demo state differs');
    // The next npm test tries again rather than taking the half-built dist/ for current.
    expect(staleness(root)).toBe('no build stamp');
    expect(run().status).toBe(3);
  });

  it('a clean clone (no dist/ at all) is stale, so npm ci (prepare) builds it', () => {
    const root = project();
    rmSync(join(root, 'dist'), { recursive: true });
    expect(staleness(root)).toBe('no build stamp');
  });

  it('the real build: clears the stamp first and writes it last; every folder it compiles is an input; test and pack build only if stale', () => {
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const steps = pkg.scripts.build!.split(' && ');
    expect(steps[0]).toBe('node scripts/dist-stamp.mjs clear');
    expect(steps.at(-1)).toBe('node scripts/dist-stamp.mjs write');
    for (const step of steps) {
      for (const path of step.match(/\b[\w-]+\/[\w./-]+\.(?:m?js|ts|json)\b/g) ?? [])
        expect(INPUT_DIRS.some((dir) => path.startsWith(`${dir}/`)) || INPUT_FILES.includes(path), `${step}: ${path}`).toBe(true);
      for (const config of step.match(/tsconfig[\w.]*\.json/g) ?? []) expect(INPUT_FILES).toContain(config);
    }
    const build = JSON.parse(readFileSync(join(packageRoot(), 'tsconfig.build.json'), 'utf8')) as { include: string[] };
    for (const dir of build.include) expect(INPUT_DIRS).toContain(dir);
    expect(pkg.scripts.pretest).toBe('node scripts/dist-stamp.mjs build-if-stale');
    expect(pkg.scripts.prepare).toBe('node scripts/dist-stamp.mjs build-if-stale');
  });
});
