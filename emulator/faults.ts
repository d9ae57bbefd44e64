import type { Context } from 'hono';
import * as v from 'valibot';
import { named } from '../src/platform/named-schema.js';
import type { AppEnv } from '../src/platform/context.js';
import { ERROR_CODES, isErrorCode, type ErrorCode } from '../src/platform/error-codes.js';
import { ServiceError } from '../src/platform/service-error.js';
import type { IdGenerator } from '../src/platform/ids.js';
import { INJECTABLE_INGEST_FAILURE, type IngestFailureCode } from '../src/platform/ingest-failures.js';
import { clientText } from '../src/platform/validation.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** The most times one fault may answer. */
export const MAX_FAULT_TIMES = 10_000;

export const FaultSchema = named(
  'FaultCreate',
  v.pipe(
    v.strictObject({
      match: v.optional(
        v.strictObject({
          method: v.optional(v.picklist(METHODS)),
          path: v.optional(v.pipe(clientText({ max: 2048 }), v.startsWith('/', 'must start with /'))),
        }),
        {},
      ),
      status: v.optional(v.pipe(v.number(), v.integer(), v.minValue(400), v.maxValue(599))),
      code: v.optional(
        v.pipe(
          v.string(),
          v.check((s: string) => isErrorCode(s), 'must be a problem code of the registry'),
        ),
      ),
      // Bounded (D-1087): a shared store counts a queued ingest failure's times in an
      // integer column; no test needs more.
      times: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_FAULT_TIMES, `must be at most ${MAX_FAULT_TIMES}`))),
      ingest: v.optional(v.pipe(v.string(), v.regex(INJECTABLE_INGEST_FAILURE, 'must be a source error code such as fetch_timeout'))),
    }),
    v.check(
      (f) => f.ingest === undefined || (f.status === undefined && f.code === undefined && Object.keys(f.match).length === 0),
      'an ingest fault takes only ingest and times',
    ),
    v.check((f) => f.ingest !== undefined || f.status !== undefined || f.code !== undefined, 'give a status, a code, or an ingest failure'),
  ),
);

export type FaultInput = v.InferOutput<typeof FaultSchema>;
/** A fault as a caller writes it (`match` may be left out). */
export type FaultRequest = v.InferInput<typeof FaultSchema>;

export interface Fault {
  id: string;
  match: { method?: string; path?: string };
  status: number;
  code: ErrorCode;
  /** null: until removed. */
  remaining: number | null;
}

/**
 * Ingestion failures queued by one `POST /_emulator/faults` with `ingest`, as
 * `GET /_emulator/faults` lists them beside the request faults (D-1093): the next
 * `remaining` ingestions or re-crawls fail with `ingest`, oldest queue first.
 */
export interface IngestFault {
  id: string;
  ingest: IngestFailureCode;
  /** How many ingestions it still fails (at least 1: a spent one is removed). */
  remaining: number;
}

/** What queuing ingestion failures answers: the entry listed, and how many `times` were asked. */
export type IngestFaultQueued = IngestFault & { times: number };

/** An entry of `GET /_emulator/faults`: a request fault, or queued ingestion failures (`ingest`). */
export type FaultEntry = Fault | IngestFault;

// When only a status is given, the most generic code of the registry for it.
const DEFAULT_CODE: Record<number, ErrorCode> = {
  400: 'svc.request.invalid',
  401: 'svc.auth.unauthorized',
  402: 'svc.billing.limit_reached',
  403: 'svc.auth.forbidden',
  404: 'svc.resource.not_found',
  409: 'svc.resource.conflict',
  410: 'svc.theme.retired',
  413: 'svc.request.payload_too_large',
  415: 'svc.asset.format_unsupported',
  422: 'svc.request.unprocessable',
  429: 'svc.rate_limit.exceeded',
  500: 'svc.internal.error',
  502: 'svc.billing.provider_unavailable',
  503: 'svc.service.unavailable',
};

type GlobToken = string | typeof STAR | typeof GLOBSTAR;
const STAR = 1;
const GLOBSTAR = 2;

/**
 * `*` matches within one path segment, `**` across segments; anything else literally.
 * Matched by stepping every pattern position at once over the path (a Thompson NFA), so
 * the time is the path's length times the pattern's, whatever the pattern: a regular
 * expression built from `**` would backtrack polynomially on a long path.
 */
export function pathMatcher(pattern: string): (path: string) => boolean {
  const tokens: GlobToken[] = [];
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== '*') tokens.push(pattern[i]!);
    else if (pattern[i + 1] === '*') {
      tokens.push(GLOBSTAR);
      while (pattern[i + 1] === '*') i++;
    } else tokens.push(STAR);
  }
  const end = tokens.length;
  // Positions reachable without reading a character: a wildcard may match nothing.
  const close = (set: Uint8Array) => {
    for (let p = 0; p < end; p++) if (set[p] && typeof tokens[p] === 'number') set[p + 1] = 1;
  };
  return (path) => {
    let current = new Uint8Array(end + 1);
    current[0] = 1;
    close(current);
    for (let i = 0; i < path.length; i++) {
      const ch = path[i];
      const next = new Uint8Array(end + 1);
      let alive = false;
      for (let p = 0; p < end; p++) {
        if (!current[p]) continue;
        const token = tokens[p];
        if (token === GLOBSTAR || (token === STAR && ch !== '/')) next[p] = 1;
        else if (token === ch) next[p + 1] = 1;
        else continue;
        alive = true;
      }
      if (!alive) return false;
      close(next);
      current = next;
    }
    return current[end] === 1;
  };
}

/** What an injected rate-limit answer asks a client to wait: no window to run out, so the least a whole second allows. */
const FAULT_RETRY_AFTER_SECONDS = '1';

/** The fault a request faults with, as a problem to throw. */
export function faultProblem(fault: Fault): ServiceError {
  return new ServiceError(fault.code, {
    status: fault.status,
    detail: { en: 'Failure injected by the emulator control plane.', es: 'Fallo inyectado por el plano de control del emulador.' },
    // The rate-limit problem always carries it (API.md): a client's backoff reads it (D-1089).
    ...(fault.code === 'svc.rate_limit.exceeded' && { headers: { 'Retry-After': FAULT_RETRY_AFTER_SECONDS } }),
  });
}

/** What a fault becomes from its input: the code its status defaults to, and the status its code has. */
export function faultFields(input: FaultInput): { status: number; code: ErrorCode } {
  const code = (input.code as ErrorCode | undefined) ?? DEFAULT_CODE[input.status ?? 500] ?? 'svc.internal.error';
  return { code, status: input.status ?? ERROR_CODES[code].status };
}

/**
 * The request faults of an emulator: in memory (`Faults`), or in the store when
 * processes share it (`SharedFaults`), so that a fault set through one is met on all.
 */
export interface FaultRules {
  add(input: FaultInput): Fault | Promise<Fault>;
  list(): Fault[] | Promise<Fault[]>;
  /** Removes every request fault; answers how many there were. */
  clear(): number | Promise<number>;
  /** Removes the request fault `id`; answers it as it was, or undefined when there is none (D-1196). */
  remove(id: string): Fault | undefined | Promise<Fault | undefined>;
  /** Throws the problem of the first matching fault; control-plane requests never match. */
  intercept(c: Context<AppEnv>): undefined | Promise<undefined>;
  /** Reads the faults other processes set (`Emulator.reloadShared`); memory has nothing to read. */
  reload(): void | Promise<void>;
}

/** Queued ingestion failures: in memory (`IngestFaults`) or in the store (`SharedIngestFaults`). */
export interface IngestFaultQueue {
  /**
   * Queues `code` for the next `times` ingestions, as the entry `id`. The emulator names
   * the entry (one id stream whatever the store, D-1093) and the queue keeps it.
   */
  add(id: string, code: IngestFailureCode, times: number): IngestFault | Promise<IngestFault>;
  /** The next queued failure, taken: its entry counts down, and is removed when spent. */
  take: () => IngestFailureCode | undefined | Promise<IngestFailureCode | undefined>;
  /** The entries not spent yet, in the order they are taken. */
  list(): IngestFault[] | Promise<IngestFault[]>;
  /** Removes every entry; answers how many there were. */
  clear(): number | Promise<number>;
  /** Removes the entry `id` not spent yet; answers it as listed, or undefined when there is none (D-1196). */
  remove(id: string): IngestFault | undefined | Promise<IngestFault | undefined>;
}

/**
 * Injected failures (decisions, D-025): a request that matches a fault is answered with its problem
 * document before anything else runs, so it changes nothing.
 */
export class Faults implements FaultRules {
  readonly #faults: (Fault & { pattern: ((path: string) => boolean) | undefined })[] = [];

  constructor(private readonly ids: IdGenerator) {}

  reload(): void {}

  add(input: FaultInput): Fault {
    const { code, status } = faultFields(input);
    const fault = {
      id: this.ids.next('flt'),
      match: { ...input.match },
      status,
      code,
      remaining: input.times ?? null,
      pattern: input.match.path ? pathMatcher(input.match.path) : undefined,
    };
    this.#faults.push(fault);
    return this.#public(fault);
  }

  list(): Fault[] {
    return this.#faults.map((f) => this.#public(f));
  }

  clear(): number {
    const cleared = this.#faults.length;
    this.#faults.length = 0;
    return cleared;
  }

  remove(id: string): Fault | undefined {
    const index = this.#faults.findIndex((f) => f.id === id);
    if (index < 0) return undefined;
    return this.#public(this.#faults.splice(index, 1)[0]!);
  }

  /** The first fault matching this request, counted as used. */
  take(method: string, path: string): Fault | undefined {
    const index = this.#faults.findIndex((f) => (!f.match.method || f.match.method === method) && (!f.pattern || f.pattern(path)));
    if (index < 0) return undefined;
    const fault = this.#faults[index]!;
    if (fault.remaining !== null && --fault.remaining === 0) this.#faults.splice(index, 1);
    return this.#public(fault);
  }

  /** Throws the problem of the first matching fault; control-plane requests never match. */
  intercept(c: Context<AppEnv>): undefined {
    if (this.#faults.length === 0 || c.req.path.startsWith('/_emulator')) return undefined;
    const fault = this.take(c.req.method, c.req.path);
    if (!fault) return undefined;
    throw faultProblem(fault);
  }

  #public({ pattern: _pattern, ...fault }: Fault & { pattern: ((path: string) => boolean) | undefined }): Fault {
    return { ...fault, match: { ...fault.match } };
  }
}

/**
 * Queued ingestion failures (`POST /_emulator/faults` with `ingest`): each ingestion or
 * re-crawl takes the next one and fails with it. The knowledge part asks through its
 * `ingestFaults` port.
 */
export class IngestFaults implements IngestFaultQueue {
  readonly #queue: IngestFault[] = [];

  /** Queues `code` for the next `times` ingestions, as the entry `id`. */
  add(id: string, code: IngestFailureCode, times: number): IngestFault {
    const entry = { id, ingest: code, remaining: times };
    this.#queue.push(entry);
    return { ...entry };
  }

  /** The next queued failure, taken. */
  take = (): IngestFailureCode | undefined => {
    const head = this.#queue[0];
    if (!head) return undefined;
    if (--head.remaining === 0) this.#queue.shift();
    return head.ingest;
  };

  list(): IngestFault[] {
    return this.#queue.map((entry) => ({ ...entry }));
  }

  clear(): number {
    const cleared = this.#queue.length;
    this.#queue.length = 0;
    return cleared;
  }

  remove(id: string): IngestFault | undefined {
    const index = this.#queue.findIndex((entry) => entry.id === id);
    if (index < 0) return undefined;
    return { ...this.#queue.splice(index, 1)[0]! };
  }
}
