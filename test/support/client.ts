import { createClient, send as sendTo, type ApiResponse, type SendOptions, type Target } from '../../emulator/client.js';
import type { TypedCalls } from '../../emulator/typed-client.js';

export type { ApiResponse };

/**
 * The client the project's own tests use: the published one, with untyped bodies read
 * as `any` (a user's client answers `unknown`; these tests check the values at run time).
 */
export interface Client extends TypedCalls {
  key: string | undefined;
  get(path: string, headers?: Record<string, string>): Promise<ApiResponse<any>>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<any>>;
  put(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<any>>;
  patch(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<any>>;
  delete(path: string, headers?: Record<string, string>): Promise<ApiResponse<any>>;
}

type Fetcher = Target | { request(path: string, init?: RequestInit): Promise<Response> | Response };

// Hono apps answer `request(path, init)`; emulators and URLs go straight through.
function asTarget(target: Fetcher): Target {
  if (typeof target === 'string' || 'fetch' in target) return target as Target;
  return { fetch: async (req: Request) => target.request(new URL(req.url).pathname + new URL(req.url).search, req) };
}

/** Sends one request in process and reads the whole answer. */
export function send(target: Fetcher, method: string, path: string, options: SendOptions = {}): Promise<ApiResponse<any>> {
  return sendTo<any>(asTarget(target), method, path, options);
}

/** A small client bound to one API key. */
export function client(target: Fetcher, key?: string): Client {
  return createClient(asTarget(target), key);
}

/** Collects every item of a list by following `nextCursor`. */
export async function walk(api: Client, path: string, limit = 100): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res: ApiResponse<any> = await api.get(`${path}${sep}limit=${limit}${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`);
    if (res.status !== 200) throw new Error(`walk ${path}: ${res.status} ${res.text}`);
    items.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor);
  return items;
}
