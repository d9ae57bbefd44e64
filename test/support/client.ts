import { createClient, send as sendTo, type ApiResponse, type Client, type SendOptions, type Target } from '../../emulator/client.js';

export type { ApiResponse, Client };

type Fetcher = Target | { request(path: string, init?: RequestInit): Promise<Response> | Response };

// Hono apps answer `request(path, init)`; emulators and URLs go straight through.
function asTarget(target: Fetcher): Target {
  if (typeof target === 'string' || 'fetch' in target) return target as Target;
  return { fetch: async (req: Request) => target.request(new URL(req.url).pathname + new URL(req.url).search, req) };
}

/** Sends one request in process and reads the whole answer. */
export function send(target: Fetcher, method: string, path: string, options: SendOptions = {}): Promise<ApiResponse> {
  return sendTo(asTarget(target), method, path, options);
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
    const res = await api.get(`${path}${sep}limit=${limit}${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`);
    if (res.status !== 200) throw new Error(`walk ${path}: ${res.status} ${res.text}`);
    items.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor);
  return items;
}
