/// <reference types="node" preserve="true" />
import { http, type HttpHandler } from 'msw';
import type { Emulator } from './emulator.js';
import { isClosedFetchError } from './closed.js';

export interface EmulatorHandlersOptions {
  /**
   * The production base URL the code under test calls, absolute:
   * `https://api.example.com`, or with a path prefix `https://api.example.com/prefix`
   * (then `…/prefix/v1/agents` reaches `/v1/agents`).
   */
  baseUrl: string;
}

const REGEXP_SPECIAL = /[.*+?^${}()|[\]\\/]/g;

function parseBaseUrl(baseUrl: unknown): URL {
  let url: URL | undefined;
  try {
    url = typeof baseUrl === 'string' ? new URL(baseUrl) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new TypeError(`emulatorHandlers: baseUrl must be an absolute http(s) URL such as "https://api.example.com", got ${JSON.stringify(baseUrl)}`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new TypeError(
      `emulatorHandlers: baseUrl must be an origin with an optional path, without query, fragment or credentials: ${JSON.stringify(baseUrl)}`,
    );
  }
  return url;
}

/**
 * MSW keeps a copy of every mocked answer, so a client that stops reading a stream never
 * cancels it at the source; the request's signal does: a stream (SSE) ends when its
 * caller aborts, as it would over a socket.
 */
function cancelOnAbort(response: Response, signal: AbortSignal): Response {
  const reader = response.body!.getReader();
  const stop = () => void reader.cancel(signal.reason).catch(() => {});
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) {
        signal.removeEventListener('abort', stop);
        controller.close();
      } else controller.enqueue(chunk.value);
    },
    cancel: stop,
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * MSW request handlers that answer every request under `baseUrl` from the emulator in
 * process: `setupServer(...emulatorHandlers(emulator, { baseUrl: 'https://api.example.com' }))`.
 * Code that calls the production URL with `fetch`, `http` or `https` reaches the emulator
 * with no port and no change; other hosts stay unhandled (MSW's `onUnhandledRequest`
 * decides). Signed file URLs the emulator hands out point under `baseUrl`, so they work
 * through the same handlers.
 */
export function emulatorHandlers(emulator: Pick<Emulator, 'handle'>, options: EmulatorHandlersOptions): HttpHandler[] {
  const base = parseBaseUrl(options?.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const publicUrl = `${base.origin}${prefix}`;
  // MSW matches a RegExp against the URL without its query: this origin and prefix, then `/` or the end.
  const scope = new RegExp(`^${publicUrl.replace(REGEXP_SPECIAL, '\\$&')}(?:/|$)`);

  const handler = http.all(scope, async ({ request }) => {
    const url = new URL(request.url);
    const path = url.pathname.slice(prefix.length) || '/';
    // Entry by entry: `new Headers(request.headers)` loses `authorization` on MSW's multipart requests.
    const headers = new Headers();
    for (const [name, value] of request.headers) if (name !== 'host') headers.append(name, value);
    const bytes = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
    const inner = new Request(`http://localhost${path}${url.search}`, {
      method: request.method,
      headers,
      signal: request.signal,
      ...(bytes && bytes.byteLength > 0 && { body: bytes }),
    });
    let response: Response;
    try {
      response = await emulator.handle(inner, { publicUrl });
    } catch (error) {
      // A closed emulator is a server that stopped: the client sees a network error (D-1077).
      if (isClosedFetchError(error)) return Response.error();
      throw error;
    }
    return response.body && /^text\/event-stream/i.test(response.headers.get('content-type') ?? '') ? cancelOnAbort(response, request.signal) : response;
  });
  return [handler];
}
