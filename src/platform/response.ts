import type { Context } from 'hono';
import type { AppEnv } from './context.js';

// Marks responses built here: they already carry the context's headers.
const STAMP = Symbol('svc.headers-applied');

/**
 * Builds a response with plain-object headers that include every header middleware put
 * in `c.var.responseHeaders`. Plain headers, never mutated afterwards, keep
 * @hono/node-server on its fast path.
 */
export function respond(c: Context<AppEnv>, status: number, body: string | null, headers: Record<string, string> = {}): Response {
  const all: Record<string, string> = {};
  const base = c.get('responseHeaders');
  for (const name in base) all[name] = base[name]!;
  for (const name in headers) all[name] = headers[name]!;
  const res = new Response(body, { status, headers: all });
  (res as unknown as Record<symbol, boolean>)[STAMP] = true;
  return res;
}

/** Adds the context's headers to a response built elsewhere (raw handlers, streams). */
export function applyResponseHeaders(c: Context<AppEnv>): void {
  if ((c.res as unknown as Record<symbol, boolean>)[STAMP]) return;
  for (const [name, value] of Object.entries(c.get('responseHeaders') ?? {})) c.res.headers.set(name, value);
}

/**
 * One request header by lowercase name. Under @hono/node-server the parsed node
 * headers are read directly: asking the Fetch `Request` builds a whole `Headers`
 * object, a cost every request would pay for its `authorization` header.
 */
export function requestHeader(c: Context<AppEnv>, name: string): string | undefined {
  const incoming = (c.env as { incoming?: { headers: Record<string, string | string[] | undefined> } } | undefined)?.incoming;
  if (!incoming) return c.req.header(name);
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
