// Bundles the CLI into one file: loading kysely's and hono's hundreds of small ESM
// modules costs more start-up time than everything else the emulator does.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

// Pure-JS dependencies worth inlining; every other dependency stays external (native
// addons, wasm, and heavy libraries that are imported lazily).
const BUNDLED = new Set(['hono', '@hono/node-server', 'kysely', 'valibot', '@valibot/to-json-schema', 'p-queue', 'ipaddr.js', 'saxes', 'image-size']);
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const external = Object.keys(pkg.dependencies ?? {}).filter((name) => !BUNDLED.has(name));

await build({
  entryPoints: [new URL('./cli.ts', import.meta.url).pathname],
  outfile: new URL('../dist/cli.js', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external,
  sourcemap: true,
  logLevel: 'warning',
  // CommonJS code inside the bundle may call require().
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
});
