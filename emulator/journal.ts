import type { Context } from 'hono';
import type { AppEnv } from '../src/platform/context.js';
import type { Clock } from '../src/platform/clock.js';
import { iso } from '../src/platform/time.js';

export interface JournalEntry {
  at: string;
  method: string;
  path: string;
  status: number;
  code: string | null;
  keyPrefix: string | null;
  workspaceId: string | null;
  requestId: string;
}

type RawEntry = Omit<JournalEntry, 'at'> & { at: number };

/**
 * What a journal keeps of one answer, or undefined for the control plane's own; a
 * promise when the problem code has to be read from an error body.
 */
export function entryOf(c: Context<AppEnv>, clock: Clock): RawEntry | undefined | Promise<RawEntry> {
  if (c.req.path.startsWith('/_emulator')) return undefined;
  const at = clock.now();
  const make = (code: string | null): RawEntry => {
    const auth = c.get('auth');
    return {
      at,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      code,
      keyPrefix: auth?.keyPrefix ?? null,
      workspaceId: auth?.workspaceId ?? null,
      requestId: c.get('requestId'),
    };
  };
  if (c.res.status < 400 || !(c.res.headers.get('content-type') ?? '').includes('json')) return make(null);
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
  /** Records one answer (the app calls it for every request). */
  recorder(clock: Clock): (c: Context<AppEnv>) => void | Promise<void>;
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

  recorder(clock: Clock): (c: Context<AppEnv>) => void | Promise<void> {
    return (c) => {
      const entry = entryOf(c, clock);
      if (entry instanceof Promise) return entry.then((e) => this.add(e));
      if (entry) this.add(entry);
    };
  }
}
