import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { accepts } from 'hono/accepts';
import { html, raw } from 'hono/html';
import type { AppEnv } from '../../src/platform/context.js';
import { respond } from '../../src/platform/response.js';

// The one stylesheet of the emulator's own pages, inline and allowed by its hash: the
// policy then lets nothing else run or load, not even another inline style.
const STYLE = [
  'body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}',
  'code{font:0.9em ui-monospace,monospace;background:#f0f2f4;padding:0 .2em;border-radius:3px}',
  'table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #dde1e5;vertical-align:top}',
  '.muted{color:#5b6470}a{color:#0b5cad}',
].join('');

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/**
 * Headers of every page the emulator itself serves (`/`, `/docs/errors`): nothing but
 * the page's own stylesheet may load, no page may frame it, and it sends no referrer.
 */
export const DOC_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': ["default-src 'none'", `style-src 'sha256-${STYLE_HASH}'`, "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"].join(
    '; ',
  ),
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** An escaped HTML fragment (`hono/html` escapes every interpolated value). */
export type Fragment = ReturnType<typeof html>;

/** Text of the reference with `code` spans: escaped first, so only our own markup remains. */
export function prose(text: string): Fragment {
  const parts = text.split('`');
  return html`${parts.map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : part))}`;
}

/** Whether the caller asked for JSON (`Accept: application/json`); browsers get HTML. */
export function wantsJson(c: Context<AppEnv>): boolean {
  return accepts(c, { header: 'Accept', supports: ['text/html', 'application/json'], default: 'text/html' }) === 'application/json';
}

/** A complete page under the strict headers. */
export function htmlPage(c: Context<AppEnv>, status: number, title: string, body: Fragment): Response {
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${raw(STYLE)}</style>
</head>
<body>
${body}
</body>
</html>
`;
  if (page instanceof Promise) throw new TypeError('doc pages are built synchronously');
  return respond(c, status, page.toString(), { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', ...DOC_PAGE_HEADERS });
}

/** The JSON form of a page, with the same headers. */
export function jsonPage(c: Context<AppEnv>, body: unknown): Response {
  return respond(c, 200, JSON.stringify(body), { 'content-type': 'application/json', 'cache-control': 'no-cache', ...DOC_PAGE_HEADERS });
}
