import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Context } from 'hono';
import type { AppEnv } from '../../src/platform/context.js';
import { sha256Hex } from '../../src/platform/crypto.js';
import type { Router } from '../../src/platform/route.js';
import { packageRoot, packageVersion } from '../package-info.js';
import { renderUiPage } from './page.js';
import { UI_PATH, uiSectionOf, type UiSection } from './ui-paths.js';

/**
 * The UI's policy: its own files only, data from its own origin, no framing. Nothing
 * inline runs, so an injected tag or attribute (say, a workspace named `<img onerror>`)
 * would do nothing even if the page's script ever put one in the DOM.
 */
export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const UI_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': UI_CSP,
  'x-content-type-options': 'nosniff',
  // For browsers that predate `frame-ancestors`.
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

interface UiFile {
  body: string;
  type: string;
  etag: string;
}

// The SSE parser the chat box reads its stream with: the same package the server's
// OpenAI adapter uses, served as its own ES module files (`stream.js` imports `./index.js`).
function vendorFiles(): [string, string][] {
  const dir = join(dirname(createRequire(import.meta.url).resolve('eventsource-parser/package.json')), 'dist');
  // Source maps are not served: drop the comment that would make devtools ask for one.
  const read = (name: string) => readFileSync(join(dir, name), 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  return [
    ['vendor/eventsource-parser/index.js', read('index.js')],
    ['vendor/eventsource-parser/stream.js', read('stream.js')],
  ];
}

let files: Map<string, UiFile> | undefined;

/** The UI's files by path under `UI_PATH`, read once: `emulator/ui/assets/*` and the vendored parser. */
function uiFiles(): Map<string, UiFile> {
  if (files) return files;
  const dir = join(packageRoot(), 'emulator', 'ui', 'assets');
  const entries: [string, string][] = readdirSync(dir)
    .filter((name) => /^[a-z-]+\.(js|css|svg)$/.test(name))
    .map((name) => [name, readFileSync(join(dir, name), 'utf8')]);
  entries.push(...vendorFiles());
  files = new Map(entries.map(([name, body]) => [name, { body, type: TYPES[name.slice(name.lastIndexOf('.'))]!, etag: `"${sha256Hex(body).slice(0, 16)}"` }]));
  return files;
}

/**
 * Serves the emulator UI's page at `UI_PATH` and `UI_PATH/<section>`, and its files
 * under `UI_PATH`. They are not API routes (not in the OpenAPI description); the
 * control-plane guard runs before them.
 */
export function registerUi(router: Router, options: { siteDomain: string }): void {
  // One page per section (D-850): the same panels, the named one shown first.
  const pages = new Map<UiSection, string>();
  const page = (c: Context<AppEnv>, section: UiSection) => {
    let html = pages.get(section);
    if (html === undefined) {
      html = renderUiPage(packageVersion(), section, options.siteDomain);
      pages.set(section, html);
    }
    return c.body(html, 200, { ...UI_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  };
  // Through the router's shell (D-1081): a request id on every answer, and on a site's
  // host the site's own 404, as for every other emulator route.
  router.page(UI_PATH, (c) => page(c, 'workspaces'));
  router.page(`${UI_PATH}/*`, (c) => {
    const rest = c.req.path.slice(UI_PATH.length + 1);
    const section = uiSectionOf(rest);
    if (section) return page(c, section);
    const file = uiFiles().get(rest);
    if (!file) return undefined;
    const headers = { ...UI_HEADERS, 'content-type': file.type, 'cache-control': 'no-cache', etag: file.etag };
    if (c.req.header('if-none-match') === file.etag) return c.body(null, 304, headers);
    return c.body(file.body, 200, headers);
  });
}
