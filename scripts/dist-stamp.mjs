// Whether dist/ is what `npm run build` makes of the sources now (decisions, D-746), so
// that `npm test` and `npm pack` build only when something that feeds dist/ changed.
//
//   node scripts/dist-stamp.mjs clear           the build's first step: dist/ is being rewritten
//   node scripts/dist-stamp.mjs write           the build's last step: dist/ matches the sources
//   node scripts/dist-stamp.mjs build-if-stale  `pretest` and `prepare`: build unless current
//
// The stamp holds a SHA-256 of every file that feeds the build (contents and paths, never
// times: a checkout changes times, not contents) and one of dist/ as the build left it.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Folders whose every file may feed dist/ (sources, fixtures, the build's own scripts). */
export const INPUT_DIRS = ['src', 'emulator', 'fixtures', 'scripts'];
/**
 * Files at the root that do: the manifest and lock (versions of what is bundled), the
 * compiler's settings, and npm's record of what is installed.
 */
export const INPUT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'node_modules/.package-lock.json'];
/** What a build always leaves; missing, dist/ is not current whatever the stamp says. */
export const OUTPUTS = ['cli.js', 'lib-main.js', 'demo-state.json', 'emulator/main.js', 'emulator/main.d.ts'];
const STAMP = '.build-stamp.json';

function filesUnder(root, dir) {
  const out = [];
  const walk = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) out.push(relative(root, full).split(sep).join('/'));
    }
  };
  if (existsSync(join(root, dir))) walk(join(root, dir));
  return out;
}

function digest(root, files) {
  const hash = createHash('sha256');
  for (const file of [...files].sort()) {
    const path = join(root, file);
    if (!existsSync(path)) continue;
    hash
      .update(`${file}\0${statSync(path).size}\0`)
      .update(readFileSync(path))
      .update('\0');
  }
  return hash.digest('hex');
}

/** The digest of everything that feeds the build under `root`. */
export function inputsDigest(root) {
  return digest(root, [...INPUT_DIRS.flatMap((dir) => filesUnder(root, dir)), ...INPUT_FILES]);
}

/** The digest of dist/ but the stamp. */
export function distDigest(root) {
  return digest(
    root,
    filesUnder(root, 'dist').filter((f) => f !== `dist/${STAMP}`),
  );
}

/** Why dist/ under `root` is not current, or undefined when it is. */
export function staleness(root) {
  const stampPath = join(root, 'dist', STAMP);
  if (!existsSync(stampPath)) return 'no build stamp';
  const missing = OUTPUTS.find((file) => !existsSync(join(root, 'dist', file)));
  if (missing) return `dist/${missing} is missing`;
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampPath, 'utf8'));
  } catch {
    return 'the build stamp is unreadable';
  }
  if (stamp.inputs !== inputsDigest(root)) return 'sources changed since the last build';
  if (stamp.dist !== distDigest(root)) return 'dist/ changed since the last build';
  return undefined;
}

export function writeStamp(root) {
  writeFileSync(join(root, 'dist', STAMP), `${JSON.stringify({ inputs: inputsDigest(root), dist: distDigest(root) }, null, 2)}\n`);
}

export function clearStamp(root) {
  rmSync(join(root, 'dist', STAMP), { force: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const command = process.argv[2];
  if (command === 'clear') clearStamp(root);
  else if (command === 'write') writeStamp(root);
  else if (command === 'build-if-stale') {
    const why = staleness(root);
    if (why === undefined) {
      console.log('dist/ is current, build skipped');
    } else {
      console.log(`building dist/ (${why}) ...`);
      const run = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
      process.exit(run.status ?? 1);
    }
  } else {
    console.error('usage: node scripts/dist-stamp.mjs clear|write|build-if-stale');
    process.exit(64);
  }
}
