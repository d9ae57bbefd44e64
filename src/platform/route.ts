import type { Context, Hono } from 'hono';
import type { ParamKeys } from 'hono/types';
import * as v from 'valibot';
import type { AppEnv, AuthContext } from './context.js';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';
import { BODY_LIMITS, hasBody, readJson, readMultipart } from './http-body.js';
import { canonicalJson, formFingerprint, type IdempotencyStore } from './idempotency.js';
import type { OpenApiRegistry, ParamDoc, ResponseDoc, RouteDoc } from './openapi.js';
import type { Scope } from './scopes.js';
import { ServiceError } from './service-error.js';
import { clientText, parseOrThrow } from './validation.js';
import { sha256Hex } from './crypto.js';
import { unreadableStored } from './stored.js';
import { respond } from './response.js';
import type { Shell } from './shell.js';

type AnySchema = v.GenericSchema<unknown, unknown>;
type Out<S> = S extends AnySchema ? v.InferOutput<S> : undefined;

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

// `agentId` for `:agentId`, `lang` for `:lang?`: hono's own reading of a path (`ParamKeys`).
type ParamName<K> = K extends `${infer N}?` ? N : K;

/** The path parameters of a Hono path: `/v1/agents/:agentId` → `{ agentId: string }`. */
export type PathParams<P extends string> = {
  [K in ParamKeys<P> as ParamName<K>]: K extends `${string}?` ? string | undefined : string;
};

// Every parameter of the path is described for the OpenAPI description (D-804).
type ParamDocs<P extends string> = [ParamKeys<P>] extends [never] ? { params?: undefined } : { params: Record<ParamName<ParamKeys<P>>, string | ParamDoc> };

/** The answers a route declares, by status. */
export type Responses = Record<number, ResponseDoc>;

// A JSON answer of one declared status: its body is what that status's schema outputs.
type JsonAnswer<S, D> = D extends { schema: infer X extends AnySchema } ? { status: S; body: v.InferOutput<X>; headers?: Record<string, string> } : never;

/**
 * What a handler answers: a `Response`, or `{ status, body }` for a status the route
 * declares with a schema, the body checked against that schema's output (D-804).
 */
export type RouteResult<R extends Responses> = Response | { [S in keyof R & number]: JsonAnswer<S, R[S]> }[keyof R & number];

interface RouteSpecFields<P extends string, B extends AnySchema | undefined, Q extends AnySchema | undefined, R extends Responses>
  extends Omit<RouteDoc, 'method' | 'path' | 'params' | 'responses' | 'body' | 'query' | 'security' | 'scope' | 'idempotent'> {
  method: Method;
  /** Hono path syntax: `/v1/projects/:projectId`. */
  path: P;
  /** `apiKey` by default under `/v1`, else `none`. */
  security?: RouteDoc['security'];
  /** Needed scope; `null` means any valid key. */
  scope?: Scope | null;
  query?: Q;
  body?: B;
  responses: R;
  /** Code for body validation failures (`svc.project.invalid`...); default `svc.request.validation_failed`. */
  invalid?: ErrorCode;
  bodyLimit?: number;
  /** Whether `Idempotency-Key` applies; default: every POST under `/v1`. */
  idempotent?: boolean | ((c: Context<AppEnv>) => boolean);
}

export type RouteSpec<
  P extends string = string,
  B extends AnySchema | undefined = AnySchema | undefined,
  Q extends AnySchema | undefined = AnySchema | undefined,
  R extends Responses = Responses,
> = RouteSpecFields<P, B, Q, R> & ParamDocs<P>;

export interface RouteInput<B, Q, Params = Record<string, string>> {
  c: Context<AppEnv>;
  /** The caller; only meaningful on `apiKey` routes. */
  auth: AuthContext;
  /** The path's parameters by name; the service checks their format, with its part's code. */
  params: Params;
  query: Q;
  body: B;
}

type AnyRouteSpec = RouteSpecFields<string, AnySchema | undefined, AnySchema | undefined, Responses>;

// A handler as the wrapper sees it, whatever its route: any input, any answer.
type Answer = Response | { status: number; body: unknown; headers?: Record<string, string> };
type AnyHandler = (input: RouteInput<unknown, unknown>) => Promise<Answer> | Answer;

/** The headers of a JSON answer that sets none of its own. */
export const JSON_HEADERS: Record<string, string> = Object.freeze({ 'content-type': 'application/json' }) as Record<string, string>;
const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

const IdempotencyKeySchema = clientText({ min: 1, max: 255 });

/**
 * The fields of a form by name. A name sent twice is refused with the route's `code`
 * (D-1097): which of two files or titles the client meant cannot be told,
 * and keeping one would drop the other without a word.
 */
function formToObject(form: FormData, code: ErrorCode): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) {
    if (Object.hasOwn(out, name)) throw new ServiceError(code, { errors: [{ field: name, reason: 'sent more than once' }] });
    out[name] = value;
  }
  return out;
}

/**
 * A stored answer is replayed only as an answer this route gives: a status it declares,
 * a body its schema for that status takes (decisions, D-722). The store holds answers
 * this service recorded; one written by hand is a problem naming the row.
 */
function assertReplayable(spec: { responses: RouteDoc['responses'] }, outcome: { status: number; body: string }, row: string): void {
  const declared = spec.responses[outcome.status];
  const at = (column: string) => ({ table: 'idempotency', row, column });
  if (!declared) throw unreadableStored(at('status'), `not a status this route answers (${Object.keys(spec.responses).join(', ')})`);
  if (declared.schema && !v.is(declared.schema, JSON.parse(outcome.body))) throw unreadableStored(at('body'), 'not an answer of this route');
}

/**
 * Registers routes on a Hono app and in the OpenAPI description at once. The wrapper
 * does, in order: scope, query, body (size, type, parse), idempotency replay, body
 * validation, the handler, and the idempotency record, so handlers hold only logic.
 */
export class Router {
  constructor(
    private readonly app: Hono<AppEnv>,
    private readonly openapi: OpenApiRegistry,
    private readonly idempotency: IdempotencyStore,
    /** Admits `apiKey` routes (key, rate limit, daily cap) before anything else. */
    private readonly gate: (c: Context<AppEnv>) => void | Promise<void>,
    private readonly shell: Shell,
  ) {}

  add<const P extends string, R extends Responses, B extends AnySchema | undefined = undefined, Q extends AnySchema | undefined = undefined>(
    spec: RouteSpec<P, B, Q, R>,
    handler: (input: RouteInput<Out<B>, Out<Q>, PathParams<NoInfer<P>>>) => Promise<RouteResult<NoInfer<R>>> | RouteResult<NoInfer<R>>,
  ): void {
    const security = spec.security ?? (spec.path.startsWith('/v1') ? 'apiKey' : 'none');
    const idempotentByDefault = spec.method === 'POST' && security === 'apiKey';
    // A function decides per request (the chat: JSON only); the description says the key applies.
    const idempotent = spec.idempotent === undefined ? idempotentByDefault : spec.idempotent !== false;
    this.openapi.add({ ...spec, security, bodyKind: spec.bodyKind ?? 'json', idempotent });
    const hasParams = spec.path.includes(':');
    const gated = security === 'apiKey';
    const { shell } = this;
    // The wrapper parses the query and the body with the spec's own schemas and takes the
    // parameters Hono matched on the spec's path: what it hands over has the handler's types.
    const run = (c: Context<AppEnv>) => this.#run(c, spec, handler as AnyHandler, { gated, hasParams, idempotentByDefault });

    // Synchronous whenever nothing on the way is not (a cached key, no body): most
    // requests then never wait on a promise they did not need.
    const route = (c: Context<AppEnv>): Promise<Response> | Response => {
      shell.begin(c);
      const early = shell.intercept(c);
      if (early instanceof Promise) return early.then((r) => (r ? shell.finish(c, r) : run(c)));
      return early ? shell.finish(c, early) : run(c);
    };
    this.app.on(spec.method, spec.path, route);
  }

  /**
   * A GET route the OpenAPI description leaves out (the UI's pages and files). It passes
   * the shell as every route does (a request id, a site host's answer first), with no
   * gate and no body; `undefined` from the handler is a 404.
   */
  page(path: string, handler: (c: Context<AppEnv>) => Response | undefined): void {
    const { shell } = this;
    const answer = (c: Context<AppEnv>, early: Response | undefined): Response | Promise<Response> => {
      const res = early ?? handler(c);
      if (!res) throw new ServiceError('svc.resource.not_found');
      return shell.finish(c, res);
    };
    this.app.get(path, (c): Response | Promise<Response> => {
      shell.begin(c);
      const early = shell.intercept(c);
      return early instanceof Promise ? early.then((r) => answer(c, r)) : answer(c, early);
    });
  }

  #run(
    c: Context<AppEnv>,
    spec: AnyRouteSpec,
    handler: AnyHandler,
    flags: { gated: boolean; hasParams: boolean; idempotentByDefault: boolean },
  ): Response | Promise<Response> {
    const admitted = flags.gated ? this.gate(c) : undefined;
    if (admitted instanceof Promise) return admitted.then(() => this.#admitted(c, spec, handler, flags));
    return this.#admitted(c, spec, handler, flags);
  }

  #admitted(
    c: Context<AppEnv>,
    spec: AnyRouteSpec,
    handler: AnyHandler,
    flags: { gated: boolean; hasParams: boolean; idempotentByDefault: boolean },
  ): Response | Promise<Response> {
    const auth = c.get('auth');
    if (spec.scope && !auth?.scopes.has(spec.scope)) {
      throw new ServiceError('svc.api_key.scope_missing', {
        detail: { en: `This call needs the ${spec.scope} scope.`, es: `Esta llamada necesita el alcance ${spec.scope}.` },
      });
    }
    const query = spec.query ? parseOrThrow(spec.query, withoutNul(c.req.query()), 'svc.request.validation_failed') : undefined;
    const params = flags.hasParams ? (c.req.param() as Record<string, string>) : NO_PARAMS;
    // No id holds a NUL (`%00`), and PostgreSQL refuses one in any text it is sent (a 500):
    // such a path names nothing, and answers the route's own 404 (D-1175).
    if (flags.hasParams && Object.values(params).some((value) => value.includes('\u0000'))) throw notFoundOf(spec);
    const wantsIdempotency = typeof spec.idempotent === 'function' ? spec.idempotent(c) : (spec.idempotent ?? flags.idempotentByDefault);
    const idemKey = wantsIdempotency && auth ? c.req.header('idempotency-key') : undefined;
    // A route that takes no body still reads one that is sent: it must be JSON, and empty (D-1165).
    if (spec.body || idemKey !== undefined || mayHaveBody(c)) return this.#withBody(c, spec, handler, { auth, query, params, idemKey });
    const pending = handler({ c, auth, params, query, body: undefined });
    return pending instanceof Promise ? pending.then((result) => this.#answer(c, result)) : this.#answer(c, pending);
  }

  #answer(c: Context<AppEnv>, result: Answer): Response | Promise<Response> {
    if (result instanceof Response) return this.shell.finish(c, result);
    const text = JSON.stringify(result.body);
    const headers = result.headers ? { 'content-type': 'application/json', ...result.headers } : JSON_HEADERS;
    return this.shell.finish(c, respond(c, result.status, text, headers));
  }

  /** The path of requests with a body or an idempotency key: read, replay or record. */
  async #withBody(
    c: Context<AppEnv>,
    spec: AnyRouteSpec,
    handler: AnyHandler,
    ctx: { auth: AuthContext; query: unknown; params: Record<string, string>; idemKey: string | undefined },
  ): Promise<Response> {
    const { auth, query, params, idemKey } = ctx;
    let input: unknown;
    let form: FormData | undefined;
    const invalid = spec.invalid ?? 'svc.request.validation_failed';
    if (spec.body) {
      if (spec.bodyKind === 'multipart') {
        form = await readMultipart(c, spec.bodyLimit ?? BODY_LIMITS.upload, invalid);
        input = form && formToObject(form, invalid);
      } else {
        // CONTRACT: "Control-plane bodies may be up to 64 MiB", every route under /_emulator (D-1107).
        const limit = spec.bodyLimit ?? (spec.path.startsWith('/_emulator/') ? BODY_LIMITS.control : BODY_LIMITS.json);
        input = await readJson(c, limit, invalid);
      }
    } else if (mayHaveBody(c)) {
      const limit = spec.path.startsWith('/_emulator/') ? BODY_LIMITS.control : BODY_LIMITS.json;
      assertNoFields(await readJson(c, limit, invalid), invalid);
    }

    if (idemKey !== undefined) {
      parseOrThrow(v.object({ 'Idempotency-Key': IdempotencyKeySchema }), { 'Idempotency-Key': idemKey }, 'svc.request.validation_failed');
      // Only a request with a key needs its body's print (an upload's is a hash of its file).
      const bodyPrint = !spec.body ? '' : form ? await formFingerprint(form) : canonicalJson(input ?? null);
      const fingerprint = sha256Hex(`${spec.method} ${c.req.path}?${new URL(c.req.url).search}\n${bodyPrint}`);
      const outcome = await this.idempotency.begin(auth.workspaceId, auth.keyId, idemKey, fingerprint);
      if (outcome.kind === 'replay') {
        assertReplayable(spec, outcome, `${auth.keyId}/${idemKey}`);
        return this.shell.finish(c, respond(c, outcome.status, outcome.body, { ...outcome.headers, 'Idempotent-Replayed': 'true' }));
      }
      if (outcome.kind === 'conflict') throw new ServiceError('svc.idempotency.conflict');
      if (outcome.kind === 'running') {
        throw new ServiceError('svc.idempotency.conflict', {
          status: 409,
          detail: { en: 'A request with this Idempotency-Key is still running.', es: 'Una solicitud con esta Idempotency-Key todavía se está ejecutando.' },
        });
      }
    }

    try {
      const body = spec.body ? parseOrThrow(spec.body, input, invalid) : undefined;
      const result = await handler({ c, auth, params, query, body });
      if (idemKey !== undefined) {
        if (result instanceof Response || result.status < 200 || result.status >= 300) await this.idempotency.abandon(auth.keyId, idemKey);
        else {
          const text = JSON.stringify(result.body);
          const headers = result.headers ? { 'content-type': 'application/json', ...result.headers } : JSON_HEADERS;
          await this.idempotency.complete(auth.keyId, idemKey, result.status, headers, text);
          return this.shell.finish(c, respond(c, result.status, text, headers));
        }
      }
      return this.#answer(c, result);
    } catch (error) {
      if (idemKey !== undefined) await this.idempotency.abandon(auth.keyId, idemKey);
      throw error;
    }
  }
}

/**
 * Whether the request may carry a body. A GET or HEAD never does (the Fetch standard
 * refuses one), and asking node-server's request for its `body` makes it build a whole
 * `Request` with a stream over the socket: on every GET that tripled what an
 * authenticated `GET /v1/me` cost (decisions, D-1216).
 */
function mayHaveBody(c: Context<AppEnv>): boolean {
  const method = c.req.method;
  return method !== 'GET' && method !== 'HEAD' && hasBody(c);
}

/**
 * The body of a route that takes none (publish, reset...): nothing, or `{}`. Anything
 * else is refused as a body with unknown fields would be (decisions, D-1165); before, it
 * was not read at all, so a body that was not JSON was taken too.
 */
function assertNoFields(input: unknown, code: ErrorCode): void {
  if (input === undefined) return;
  const object = typeof input === 'object' && input !== null && !Array.isArray(input);
  const fields = object ? Object.keys(input) : [];
  if (object && fields.length === 0) return;
  const errors = object ? fields.map((field) => ({ field, reason: 'unknown field' })) : [{ field: '(body)', reason: 'must be empty: this call takes no body' }];
  throw new ServiceError(code, { errors });
}

/** The 404 a route answers for what it cannot find, else `svc.resource.not_found`. */
function notFoundOf(spec: { errors?: readonly ErrorCode[] | undefined }): ServiceError {
  const code = spec.errors?.find((c) => ERROR_CODES[c].status === 404) ?? 'svc.resource.not_found';
  return new ServiceError(code);
}

/** The query as read, refused when a value holds a NUL: PostgreSQL takes none in its text (D-1175). */
function withoutNul(query: Record<string, string>): Record<string, string> {
  const errors = Object.entries(query)
    .filter(([, value]) => value.includes('\u0000'))
    .map(([field]) => ({ field, reason: 'must not hold a NUL character (%00)' }));
  if (errors.length) throw new ServiceError('svc.request.validation_failed', { errors });
  return query;
}
