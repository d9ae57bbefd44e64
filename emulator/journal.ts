import type { Context } from 'hono';
import type { AppEnv } from '../src/platform/context.js';
import type { Clock } from '../src/platform/clock.js';
import { requestHeader } from '../src/platform/response.js';
import { iso } from '../src/platform/time.js';

export interface JournalEntry {
  at: string;
  method: string;
  /** The hosted site's host the request was addressed to (`cafe.localhost`); null for the API and the console (D-1197). */
  host: string | null;
  path: string;
  status: number;
  code: string | null;
  keyPrefix: string | null;
  workspaceId: string | null;
  requestId: string;
}

type RawEntry = Omit<JournalEntry, 'at'> & { at: number };

/** A console route that names its workspace (`/workspaces/{id}/keys`...): the id, as the route reads it (D-1197). */
const CONSOLE_WORKSPACE = /^\/workspaces\/([^/]+)(?:\/|$)/;

function consoleWorkspace(path: string): string | null {
  const segment = CONSOLE_WORKSPACE.exec(path)?.[1];
  if (segment === undefined) return null;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The host of a request to a hosted site (`<slug>.<siteDomain>`), as the site handler
 * reads it: the Host header without its port or its root's dot, else the URL's; null
 * for any other host (the API, the console).
 */
function siteHost(c: Context<AppEnv>, suffix: string | undefined): string | null {
  if (suffix === undefined) return null;
  const header = requestHeader(c, 'host');
  const host = (header ? header.replace(/:\d+$/, '') : new URL(c.req.url).hostname).toLowerCase().replace(/\.$/, '');
  return host.endsWith(suffix) ? host : null;
}

/**
 * What a journal keeps of one answer, or undefined for the control plane's own; a
 * promise when the problem code has to be read from an error body. `siteDomain`: the
 * hosted sites' domain, whose requests are kept with their host.
 */
export function entryOf(c: Context<AppEnv>, clock: Clock, siteDomain?: string): RawEntry | undefined | Promise<RawEntry> {
  if (c.req.path.startsWith('/_emulator')) return undefined;
  const at = clock.now();
  const make = (code: string | null): RawEntry => {
    const auth = c.get('auth');
    const path = c.req.path;
    return {
      at,
      method: c.req.method,
      host: siteHost(c, siteDomain === undefined ? undefined : `.${siteDomain.toLowerCase()}`),
      path,
      status: c.res.status,
      code,
      keyPrefix: auth?.keyPrefix ?? null,
      // A console route has no key: the workspace its path names (D-1197).
      workspaceId: auth?.workspaceId ?? consoleWorkspace(path),
      requestId: c.get('requestId'),
    };
  };
  if (c.res.status < 400 || !(c.res.headers.get('content-type') ?? '').includes('json')) return make(null);
  // The problem this request built says its code: reading it back from the body cloned
  // node-server's response into a whole one and parsed it, most of what a 404 cost (D-1218).
  const answered = c.get('problem');
  if (answered?.status === c.res.status) return make(answered.code);
  // An answer stored earlier (an idempotent replay of a problem): its body says.
  return c.res
    .clone()
    .json()
    .then((body) => {
      const code = (body as { code?: unknown }).code;
      return typeof code === 'string' ? code : null;
    })
    .catch(() => null)
    .then(make);
}

/** The request journal: in memory (`Journal`), or in the store when processes share it (`SharedJournal`). */
export interface JournalStore {
  readonly capacity: number;
  /** Newest first. */
  recent(limit: number): JournalEntry[] | Promise<JournalEntry[]>;
  clear(): void | Promise<void>;
  /** Records one answer (the app calls it for every request); `siteDomain`: the hosted sites' domain. */
  recorder(clock: Clock, siteDomain?: string): (c: Context<AppEnv>) => void | Promise<void>;
}

/**
 * The bounded request journal: the last `capacity` requests, without query strings,
 * bodies or credentials (only the key's public prefix).
 */
export class Journal implements JournalStore {
  // A ring: `#next` is where the next entry goes; `#size` how many are held. Times are
  // kept as epoch milliseconds and formatted when read.
  readonly #ring: (RawEntry | undefined)[];
  #next = 0;
  #size = 0;

  constructor(readonly capacity = 1000) {
    this.#ring = new Array(capacity);
  }

  add(entry: RawEntry): void {
    this.#ring[this.#next] = entry;
    this.#next = (this.#next + 1) % this.capacity;
    this.#size = Math.min(this.#size + 1, this.capacity);
  }

  /** Newest first. */
  recent(limit: number): JournalEntry[] {
    const out: JournalEntry[] = [];
    for (let i = 1; i <= Math.min(limit, this.#size); i++) {
      const entry = this.#ring[(this.#next - i + this.capacity) % this.capacity]!;
      out.push({ ...entry, at: iso(entry.at) });
    }
    return out;
  }

  clear(): void {
    this.#ring.fill(undefined);
    this.#next = 0;
    this.#size = 0;
  }

  recorder(clock: Clock, siteDomain?: string): (c: Context<AppEnv>) => void | Promise<void> {
    return (c) => {
      const entry = entryOf(c, clock, siteDomain);
      if (entry instanceof Promise) return entry.then((e) => this.add(e));
      if (entry) this.add(entry);
    };
  }
}
