// Bundles the CLI: loading kysely's and hono's hundreds of small ESM modules costs more
// start-up time than everything else the emulator does.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';

// Pure-JS dependencies worth inlining; every other dependency stays external (native
// addons, wasm, and heavy libraries that are imported lazily).
// linkedom is bundled for `lazyListenerMaps` (its optional peer `canvas` stays outside).
// turndown is bundled so that its DOM parser, which it loads whether or not it is ever
// used, is left out (`withoutDomino`).
// mediabunny (MPL-2.0; esbuild keeps each file's licence comment) is bundled so that it is
// no dependency of the package: it depends on `@types/dom-webcodecs`, which a consumer's
// TypeScript then loads with its own DOM lib and fails on (D-1152).
const BUNDLED = new Set([
  'mediabunny',
  'hono',
  '@hono/node-server',
  'kysely',
  'valibot',
  '@valibot/to-json-schema',
  'p-queue',
  'ipaddr.js',
  'saxes',
  'image-size',
  'linkedom',
  'turndown',
]);
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// Peers (vitest, msw) are the user's own: the entries that use them import them.
const external = [...Object.keys(pkg.dependencies ?? {}).filter((name) => !BUNDLED.has(name)), ...Object.keys(pkg.peerDependencies ?? {}), 'canvas'];

// linkedom's EventTarget gives every node, attribute and text it creates a listener map
// in a module-wide WeakMap, though a page read for its text never gets a listener: a
// quarter of reading a page went to those maps and to the young-generation collections
// that trace the WeakMap's entries (decisions, D-1051). In the bundle the map is made
// when a first listener is added; a node without one behaves as one with an empty map.
// Each edit must apply, else the build fails: another linkedom must be looked at again.
const LISTENER_MAPS = [
  ['  constructor() {\n    wm.set(this, new Map);\n  }', '  constructor() {}'],
  [
    '    const map = wm.get(this);\n    if (!map.has(type)) \n',
    '    let map = wm.get(this);\n    if (!map) wm.set(this, (map = new Map));\n    if (!map.has(type)) \n',
  ],
  ['    const map = wm.get(this);\n    if (map.has(type)) {', '    const map = wm.get(this);\n    if (map && map.has(type)) {'],
];
const lazyListenerMaps = {
  name: 'linkedom-lazy-listener-maps',
  setup(b) {
    b.onLoad({ filter: /[\\/]linkedom[\\/]esm[\\/]interface[\\/]event-target\.js$/ }, ({ path }) => {
      let contents = readFileSync(path, 'utf8');
      for (const [from, to] of LISTENER_MAPS) {
        if (contents.split(from).length !== 2) throw new Error(`${path} is not the linkedom D-1051 was written for: look at its listener maps again`);
        contents = contents.replace(from, to);
      }
      return { contents, loader: 'js' };
    });
  },
};

// Turndown requires the domino DOM parser when its module loads (about 40 ms of CPU in
// every thread that reads a page), for a string of HTML; the pipeline hands it linkedom's
// elements, never a string (src/knowledge/pipeline/extract-html.ts). In the bundle the
// parser is a stub that says so if a string ever reaches it (decisions, D-1215).
const withoutDomino = {
  name: 'turndown-without-domino',
  setup(b) {
    b.onResolve({ filter: /^@mixmark-io\/domino$/ }, ({ importer }) => {
      if (!/[\\/]turndown[\\/]/.test(importer)) throw new Error(`${importer} imports domino: only turndown's was meant to be left out (D-1215)`);
      return { path: 'domino', namespace: 'turndown-without-domino' };
    });
    b.onLoad({ filter: /.*/, namespace: 'turndown-without-domino' }, () => ({
      contents:
        "module.exports = { createDocument() { throw new Error('Turndown was given HTML as a string: the bundle leaves its parser out, hand it an element (D-1215)'); } };",
      loader: 'js',
    }));
  },
};

// Worker modules (`*.worker.ts`) run in threads of their own: each becomes a file
// beside the CLI, `dist/<name>.js`, where `workerModule(import.meta.url, name)` looks
// for it from inside the bundle. Their names must therefore be unique.
const root = new URL('..', import.meta.url).pathname;
const workers = ['src', 'emulator']
  .flatMap((dir) => readdirSync(join(root, dir), { recursive: true }).map((f) => join(root, dir, String(f))))
  .filter((f) => f.endsWith('.worker.ts'));
const names = workers.map((f) => basename(f, '.ts'));
const twice = names.find((n, i) => names.indexOf(n) !== i);
if (twice) throw new Error(`two worker modules are named ${twice}: the bundle needs unique names`);

// Chunks of an earlier build would pile up: their names change with their content.
const dist = new URL('../dist', import.meta.url).pathname;
for (const name of existsSync(dist) ? readdirSync(dist) : []) if (/^chunk-\w+\.js(\.map)?$/.test(name)) rmSync(join(dist, name));

// The library's entries (package.json `exports`), bundled as the CLI is: importing the
// compiled sources (`tsc`'s output, several hundred ES modules with kysely's and hono's)
// cost a process about three times as long as this bundle (decisions, D-1072). Beside the
// CLI, so that they share its chunks (one class per export whatever the entry imported)
// and `workerModule` finds the workers from any of them. Types stay `tsc`'s.
const LIBRARY = { 'lib-main': 'main.ts', 'lib-emulator': 'index.ts', 'lib-vitest': 'vitest.ts', 'lib-msw': 'msw.ts' };

// Split: what a start does not need (the emulator's code behind the command line, heavy
// parts imported on first use) is in chunks loaded when imported, `dist/chunk-*.js`,
// beside the entries so that `workerModule` finds the workers from any of them. The
// bin, `dist/cli.js`, is a few lines that read the parent pid before anything loads
// (decisions, D-742).
await build({
  entryPoints: {
    cli: new URL('./cli.ts', import.meta.url).pathname,
    ...Object.fromEntries(Object.entries(LIBRARY).map(([name, file]) => [name, new URL(`./${file}`, import.meta.url).pathname])),
    ...Object.fromEntries(workers.map((f) => [basename(f, '.ts'), f])),
  },
  outdir: dist,
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  splitting: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external,
  sourcemap: true,
  logLevel: 'warning',
  plugins: [lazyListenerMaps, withoutDomino],
  // A test's fake timers must not stand still the bundle's own scheduling (D-1230).
  inject: [new URL('./bundle-globals.mjs', import.meta.url).pathname],
  // CommonJS code inside the bundle may call require().
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
});

// The tokenizer's vocabulary as a table beside the chunks (`src/knowledge/pipeline/tokens.ts`
// reads it there): each thread that counts tokens reads it as it is, where gpt-tokenizer
// builds a Map of its 200,000 ranks in every thread (decisions, D-1214; D-1073 before it).
// Written from the installed package by tsc's build of the same module, so it is the
// package's vocabulary whatever its version.
const { default: ranks } = await import('gpt-tokenizer/esm/bpeRanks/o200k_base');
if (!Array.isArray(ranks) || ranks.length < 199_000 || Object.keys(ranks).length !== ranks.length)
  throw new Error('gpt-tokenizer: o200k_base ranks are not the array D-1214 was written for');
const { encodeRankTable, RANK_TABLE_FILE } = await import('../dist/src/knowledge/pipeline/rank-table.js');
writeFileSync(join(dist, RANK_TABLE_FILE), encodeRankTable(ranks));
