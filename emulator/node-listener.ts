import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { getRequestListener, RequestError } from '@hono/node-server';
import type { Detail } from '../src/platform/service-error.js';

type Fetch = (request: Request, env: { incoming: IncomingMessage; outgoing: ServerResponse; unreadable?: { detail?: Detail } }) => Response | Promise<Response>;

const BAD_HOST: Detail = {
  en: 'The Host header is not a host name or address with an optional port.',
  es: 'La cabecera Host no es un nombre o una dirección de host con un puerto opcional.',
};

// What node-server says when it cannot make a URL of a request, told to the client.
const REASONS: [RegExp, Detail][] = [
  [/host/i, BAD_HOST],
  [
    /backslash/i,
    { en: 'The request path holds a backslash; write it as %5C.', es: 'La ruta de la solicitud contiene una barra invertida; escríbala como %5C.' },
  ],
];

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * An HTTP server for `fetch` on node's `http`, as `@hono/node-server`'s `serve` makes
 * one, except for a request node-server cannot turn into a URL (a malformed `Host`, a
 * backslash in the path): node-server answers it with a bare 400, no body and no
 * request id. Here it reaches the app as a request to the same path on the server's own
 * address, marked `unreadable`, so that the app's one error handler answers it with a
 * problem document (`svc.request.invalid`, D-1117) and no route runs.
 */
export function createNodeServer(fetch: Fetch, hostname: string): Server {
  const current = new AsyncLocalStorage<{ incoming: IncomingMessage; outgoing: ServerResponse }>();
  // node-server takes a Host of letters, digits, dots and hyphens as it is, without
  // parsing it: `999.999.999.999` or `xn--a.localhost` (no IPv4 address, no valid
  // punycode) make a URL no `new URL` reads. Such a request is as unreadable as the
  // ones node-server refuses itself (D-1117, D-1145): only its Host can be at fault.
  const readable: Fetch = (request, env) =>
    URL.canParse(request.url) ? fetch(request, env) : fetch(ownRequest(env.incoming), { ...env, unreadable: { detail: BAD_HOST } });
  const listener = getRequestListener(readable as never, {
    hostname,
    errorHandler: (error) => {
      const exchange = current.getStore();
      // Only a request node-server could not read comes here with its exchange: the
      // app's own failures are answered by its error handler and never reject.
      if (!(error instanceof RequestError) || !exchange) throw error;
      const detail = REASONS.find(([pattern]) => pattern.test(error.message))?.[1];
      return fetch(ownRequest(exchange.incoming), { ...exchange, unreadable: { detail } });
    },
  });
  return createServer((incoming, outgoing) => current.run({ incoming, outgoing }, () => listener(incoming, outgoing)));
}

/** The request as one to the listening address: its method when a common one, its path with backslashes escaped, its `Accept` headers. */
function ownRequest(incoming: IncomingMessage): Request {
  const socket = incoming.socket;
  const address = socket.localAddress ?? '127.0.0.1';
  const origin = `http://${address.includes(':') ? `[${address}]` : address}:${socket.localPort ?? 80}`;
  const method = METHODS.has(incoming.method ?? '') ? incoming.method! : 'GET';
  // How the problem is written (its language, a page or a document), nothing else.
  const headers = new Headers();
  for (const name of ['accept', 'accept-language']) {
    const value = incoming.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  const target = (incoming.url ?? '/').replaceAll('\\', '%5C');
  try {
    // Joined, not resolved: `//elsewhere/x` stays a path on this server.
    if (target.startsWith('/')) return new Request(`${origin}${target}`, { method, headers });
  } catch {
    // Not a path a URL can hold: the problem names the root instead.
  }
  return new Request(`${origin}/`, { method, headers });
}
