import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { getRequestListener, RequestError } from '@hono/node-server';
import type { Detail } from '../src/platform/service-error.js';

type Fetch = (
  request: Request,
  env: { incoming?: IncomingMessage; outgoing?: ServerResponse; unreadable?: { detail?: Detail } },
) => Response | Promise<Response>;

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

// What node's own parser refuses before any request exists (D-1168).
const HEADERS_TOO_LARGE: Detail = {
  en: 'The request headers are too large (at most 16 KiB in all).',
  es: 'Las cabeceras de la solicitud son demasiado grandes (16 KiB en total como máximo).',
};
const UNPARSABLE: Detail = {
  en: 'The request is not valid HTTP/1.1 (its request line, a header or its framing).',
  es: 'La solicitud no es HTTP/1.1 válido (su línea de solicitud, una cabecera o su delimitación).',
};

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
  // The exchange node-server is reading, for its error handler: node-server calls that
  // handler in the same turn as the listener when it cannot make a request of the
  // exchange, so a variable set around the call is enough. (An AsyncLocalStorage made
  // Node 20 run its promise hooks on every promise of every request, D-1213.)
  let reading: { incoming: IncomingMessage; outgoing: ServerResponse } | undefined;
  // node-server takes a Host of letters, digits, dots and hyphens as it is, without
  // parsing it: `999.999.999.999` or `xn--a.localhost` (no IPv4 address, no valid
  // punycode) make a URL no `new URL` reads. Such a request is as unreadable as the
  // ones node-server refuses itself (D-1117, D-1145): only its Host can be at fault.
  const readable = (request: Request, env: { incoming: IncomingMessage; outgoing: ServerResponse }) =>
    URL.canParse(request.url) ? fetch(request, env) : fetch(ownRequest(env.incoming), { ...env, unreadable: { detail: BAD_HOST } });
  const listener = getRequestListener(readable as never, {
    hostname,
    errorHandler: (error) => {
      const exchange = reading;
      // Only a request node-server could not read comes here with its exchange: the
      // app's own failures are answered by its error handler and never reject.
      if (!(error instanceof RequestError) || !exchange) throw error;
      const detail = REASONS.find(([pattern]) => pattern.test(error.message))?.[1];
      return fetch(ownRequest(exchange.incoming), { ...exchange, unreadable: { detail } });
    },
  });
  const server = createServer((incoming, outgoing) => {
    reading = { incoming, outgoing };
    try {
      void listener(incoming, outgoing);
    } finally {
      reading = undefined;
    }
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(fetch, error, socket));
  return server;
}

/**
 * A request node's parser refuses (a header block over its limit, a raw byte in the
 * path, `Content-Length: abc`) never reaches node-server: node wrote a bare `400` or
 * `431`, without a body or a request id. Its answer is the app's problem document for
 * an unreadable request instead (`400 svc.request.invalid`, a request id, D-1168); the
 * connection closes after it, as node's does. A timeout or a reset keeps node's ways.
 */
function answerClientError(fetch: Fetch, error: NodeJS.ErrnoException, socket: Duplex): void {
  const parse = typeof error.code === 'string' && error.code.startsWith('HPE_');
  if (!parse || !socket.writable) {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && socket.writable) socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    else socket.destroy();
    return;
  }
  const detail = error.code === 'HPE_HEADER_OVERFLOW' ? HEADERS_TOO_LARGE : UNPARSABLE;
  const origin = listeningOrigin(socket as Duplex & LocalEnd);
  // The socket stands in for the request node could not make: its address is what the
  // problem's links are built from, as for any request on this server (D-870).
  const incoming = { socket, headers: {} } as unknown as IncomingMessage;
  Promise.resolve(fetch(new Request(`${origin}/`), { incoming, unreadable: { detail } }))
    .then(async (res) => {
      const body = Buffer.from(await res.arrayBuffer());
      const head = [`HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? ''}`];
      res.headers.forEach((value, name) => {
        if (name !== 'content-length' && name !== 'connection' && name !== 'transfer-encoding') head.push(`${name}: ${value}`);
      });
      head.push(`content-length: ${body.byteLength}`, 'connection: close', '', '');
      if (socket.writable) socket.end(Buffer.concat([Buffer.from(head.join('\r\n'), 'latin1'), body]));
    })
    .catch(() => socket.destroy());
}

/** The request as one to the listening address: its method when a common one, its path with backslashes escaped, its `Accept` headers. */
function ownRequest(incoming: IncomingMessage): Request {
  const socket = incoming.socket;
  const origin = listeningOrigin(socket);
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

interface LocalEnd {
  localAddress?: string | undefined;
  localPort?: number | undefined;
}

/** The address and port a connection reached on this server, as an origin. */
function listeningOrigin(socket: LocalEnd): string {
  const address = socket.localAddress ?? '127.0.0.1';
  return `http://${address.includes(':') ? `[${address}]` : address}:${socket.localPort ?? 80}`;
}
