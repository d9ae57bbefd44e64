import { buildPath, readBody, toFormIfFiles, typedHeaders, type TypedCalls, type UntypedInit } from './typed-client.js';

/** What a client can send through: an emulator in process, or a base URL over HTTP. */
export type Target = { fetch(request: Request): Promise<Response> } | string;

/**
 * An untyped answer. Its body is `unknown` unless the caller names a type
 * (`api.get<Agent>(path)`): the typed calls (`GET`, `POST`...) are the ones that know
 * what a route answers (D-801).
 */
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: T;
  text: string;
}

export interface SendOptions {
  key?: string | undefined;
  /** A JSON value, a string, bytes or FormData. */
  body?: unknown;
  headers?: Record<string, string> | undefined;
}

/**
 * A client bound to one key: `get`, `post`... answer `ApiResponse<unknown>` (name the
 * body's type to read it: `get<Agent>(path)`); `GET`, `POST`... are typed by path and
 * method from the OpenAPI description.
 */
export interface Client extends TypedCalls {
  key: string | undefined;
  get<T = unknown>(path: string, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  post<T = unknown>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  put<T = unknown>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  patch<T = unknown>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  delete<T = unknown>(path: string, headers?: Record<string, string>): Promise<ApiResponse<T>>;
}

// A scheme first (`http:`, `https:`): the path is a whole URL. Anchored, one pass.
const ABSOLUTE = /^[A-Za-z][A-Za-z\d+.-]*:/;

/**
 * `path` under `base`, keeping the base's own path (D-1085): `https://api.example.com/prefix`
 * and `/v1/me` are `https://api.example.com/prefix/v1/me`, as a client library joins them
 * (`new URL(path, base)` would drop `/prefix`). A whole URL (a site's host) is taken as it is.
 */
function under(base: string, path: string): URL {
  if (ABSOLUTE.test(path)) return new URL(path);
  const root = new URL(base);
  let prefix = root.pathname;
  while (prefix.endsWith('/')) prefix = prefix.slice(0, -1);
  return new URL(`${prefix}${path.startsWith('/') ? '' : '/'}${path}`, root.origin);
}

function dispatch(target: Target, method: string, path: string, options: SendOptions): Promise<Response> {
  const headers: Record<string, string> = {};
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: RequestInit['body'] | undefined;
  if (options.body instanceof FormData || typeof options.body === 'string' || options.body instanceof Uint8Array) {
    body = options.body as RequestInit['body'];
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  Object.assign(headers, options.headers);
  const base = typeof target === 'string' ? target : 'http://localhost';
  const request = new Request(under(base, path), { method, headers, ...(body !== undefined && { body }) });
  return typeof target === 'string' ? fetch(request) : target.fetch(request);
}

/** Sends one request and reads the whole answer. */
export async function send<T = unknown>(target: Target, method: string, path: string, options: SendOptions = {}): Promise<ApiResponse<T>> {
  const res = await dispatch(target, method, path, options);
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

function typedCall(target: Target, key: string | undefined, method: string) {
  return async (template: string, init: UntypedInit = {}) => {
    const body = toFormIfFiles(init.body);
    const headers = typedHeaders(init);
    const response = await dispatch(target, method, buildPath(template, init), { key, body, ...(headers && { headers }) });
    const read = await readBody(response, init.parseAs);
    const ok = response.status >= 200 && response.status < 300;
    return {
      status: response.status,
      ok,
      headers: response.headers,
      response,
      body: read.body,
      text: read.text,
      data: ok ? read.body : undefined,
      error: ok ? undefined : read.body,
    };
  };
}

/**
 * A small client bound to one API key (or none, for the control plane):
 * `get`, `post`, `put`, `patch`, `delete`, each answering `{ status, headers, body, text }`,
 * and the same typed by path and method (`GET('/v1/agents/{agentId}', { params: { path: { agentId } } })`),
 * answering a union over the statuses the route declares.
 */
export function createClient(target: Target, key?: string): Client {
  const call =
    (method: string) =>
    <T = unknown>(path: string, body?: unknown, headers?: Record<string, string>) =>
      send<T>(target, method, path, { key, body, ...(headers && { headers }) });
  return {
    key,
    get: <T = unknown>(path: string, headers?: Record<string, string>) => send<T>(target, 'GET', path, { key, ...(headers && { headers }) }),
    post: call('POST'),
    put: call('PUT'),
    patch: call('PATCH'),
    delete: <T = unknown>(path: string, headers?: Record<string, string>) => send<T>(target, 'DELETE', path, { key, ...(headers && { headers }) }),
    // Typed by path and method from the OpenAPI description (openapi-fetch style).
    GET: typedCall(target, key, 'GET') as TypedCalls['GET'],
    POST: typedCall(target, key, 'POST') as TypedCalls['POST'],
    PUT: typedCall(target, key, 'PUT') as TypedCalls['PUT'],
    PATCH: typedCall(target, key, 'PATCH') as TypedCalls['PATCH'],
    DELETE: typedCall(target, key, 'DELETE') as TypedCalls['DELETE'],
  };
}
