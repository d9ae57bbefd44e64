import type { Emulator } from '../../emulator/emulator.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

type Fetcher = { fetch(request: Request): Promise<Response> } | { request(path: string, init?: RequestInit): Promise<Response> | Response };

/** Sends one request in process and reads the whole answer. */
export async function send(target: Fetcher, method: string, path: string, options: { key?: string | undefined; body?: unknown; headers?: Record<string, string> } = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: RequestInit["body"] | undefined;
  if (options.body instanceof FormData) body = options.body;
  else if (typeof options.body === 'string' || options.body instanceof Uint8Array) body = options.body as RequestInit["body"];
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  Object.assign(headers, options.headers);
  const init: RequestInit = { method, headers, ...(body !== undefined && { body }) };
  const res = 'fetch' in target ? await target.fetch(new Request(new URL(path, 'http://localhost'), init)) : await target.request(path, init);
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** A small client bound to one API key. */
export function client(target: Fetcher | Emulator, key?: string) {
  const t = target as Fetcher;
  const call = (method: string) => (path: string, body?: unknown, headers?: Record<string, string>) =>
    send(t, method, path, { key, body, ...(headers && { headers }) });
  return {
    key,
    get: (path: string, headers?: Record<string, string>) => send(t, 'GET', path, { key, ...(headers && { headers }) }),
    post: call('POST'),
    put: call('PUT'),
    patch: call('PATCH'),
    delete: (path: string, headers?: Record<string, string>) => send(t, 'DELETE', path, { key, ...(headers && { headers }) }),
  };
}

export type Client = ReturnType<typeof client>;

/** Collects every item of a list by following `nextCursor`. */
export async function walk(api: Client, path: string, limit = 100): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await api.get(`${path}${sep}limit=${limit}${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`);
    if (res.status !== 200) throw new Error(`walk ${path}: ${res.status} ${res.text}`);
    items.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor);
  return items;
}
