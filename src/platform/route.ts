import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import type { AppEnv, AuthContext } from './context.js';
import type { ErrorCode } from './error-codes.js';
import { BODY_LIMITS, readJson, readMultipart } from './http-body.js';
import { canonicalJson, formFingerprint, type IdempotencyStore } from './idempotency.js';
import type { OpenApiRegistry, RouteDoc } from './openapi.js';
import type { Scope } from './scopes.js';
import { ServiceError } from './service-error.js';
import { parseOrThrow } from './validation.js';
import { sha256Hex } from './crypto.js';
import { respond } from './response.js';

type AnySchema = v.GenericSchema<unknown, unknown>;
type Out<S> = S extends AnySchema ? v.InferOutput<S> : undefined;

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteSpec<B extends AnySchema | undefined, Q extends AnySchema | undefined>
  extends Omit<RouteDoc, 'method' | 'body' | 'query' | 'security' | 'scope'> {
  method: Method;
  /** Hono path syntax: `/v1/projects/:projectId`. */
  path: string;
  /** `apiKey` by default under `/v1`, else `none`. */
  security?: RouteDoc['security'];
  /** Needed scope; `null` means any valid key. */
  scope?: Scope | null;
  query?: Q;
  body?: B;
  /** Code for body validation failures (`svc.project.invalid`...); default `svc.request.validation_failed`. */
  invalid?: ErrorCode;
  bodyLimit?: number;
  /** Whether `Idempotency-Key` applies; default: every POST under `/v1`. */
  idempotent?: boolean | ((c: Context<AppEnv>) => boolean);
}

export interface RouteInput<B, Q> {
  c: Context<AppEnv>;
  /** The caller; only meaningful on `apiKey` routes. */
  auth: AuthContext;
  params: Record<string, string>;
  query: Q;
  body: B;
}

export type RouteResult = Response | { status: number; body: unknown; headers?: Record<string, string> };

const JSON_HEADERS: Record<string, string> = Object.freeze({ 'content-type': 'application/json' }) as Record<string, string>;
const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

const IdempotencyKeySchema = v.pipe(v.string(), v.minLength(1), v.maxLength(255, 'must be 1 to 255 characters'));

function formToObject(form: FormData): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) out[name] = value;
  return out;
}

/** A JSON response with the given status, the one way handlers answer. */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
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
  ) {}

  add<B extends AnySchema | undefined = undefined, Q extends AnySchema | undefined = undefined>(
    spec: RouteSpec<B, Q>,
    handler: (input: RouteInput<Out<B>, Out<Q>>) => Promise<RouteResult> | RouteResult,
  ): void {
    const security = spec.security ?? (spec.path.startsWith('/v1') ? 'apiKey' : 'none');
    this.openapi.add({ ...spec, security, bodyKind: spec.bodyKind ?? 'json' });
    const idempotentByDefault = spec.method === 'POST' && security === 'apiKey';
    const hasParams = spec.path.includes(':');

    const gated = security === 'apiKey';
    this.app.on(spec.method, spec.path, async (c) => {
      if (gated) {
        const admitted = this.gate(c);
        if (admitted instanceof Promise) await admitted;
      }
      const auth = c.get('auth');
      if (spec.scope && !auth?.scopes.has(spec.scope)) {
        throw new ServiceError('svc.api_key.scope_missing', {
          detail: { en: `This call needs the ${spec.scope} scope.`, es: `Esta llamada necesita el alcance ${spec.scope}.` },
        });
      }
      const query = (spec.query ? parseOrThrow(spec.query, c.req.query(), 'svc.request.validation_failed') : undefined) as Out<Q>;

      let input: unknown;
      let bodyPrint = '';
      if (spec.body) {
        if (spec.bodyKind === 'multipart') {
          const form = await readMultipart(c, spec.bodyLimit ?? BODY_LIMITS.upload);
          input = formToObject(form);
          bodyPrint = await formFingerprint(form);
        } else {
          input = await readJson(c, spec.bodyLimit ?? BODY_LIMITS.json);
          bodyPrint = canonicalJson(input ?? null);
        }
      }

      const wantsIdempotency =
        typeof spec.idempotent === 'function' ? spec.idempotent(c) : spec.idempotent ?? idempotentByDefault;
      const headerKey = wantsIdempotency && auth ? c.req.header('idempotency-key') : undefined;
      const idemKey = headerKey;
      if (idemKey !== undefined) {
        parseOrThrow(v.object({ 'Idempotency-Key': IdempotencyKeySchema }), { 'Idempotency-Key': idemKey }, 'svc.request.validation_failed');
        const fingerprint = sha256Hex(`${spec.method} ${c.req.path}?${new URL(c.req.url).search}\n${bodyPrint}`);
        const outcome = await this.idempotency.begin(auth.workspaceId, auth.keyId, idemKey, fingerprint);
        if (outcome.kind === 'replay') {
          return respond(c, outcome.status, outcome.body, { ...outcome.headers, 'Idempotent-Replayed': 'true' });
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
        const body = (spec.body ? parseOrThrow(spec.body, input, spec.invalid ?? 'svc.request.validation_failed') : undefined) as Out<B>;
        const pending = handler({ c, auth, params: hasParams ? (c.req.param() as Record<string, string>) : NO_PARAMS, query, body });
        const result = pending instanceof Promise ? await pending : pending;
        if (result instanceof Response) {
          if (idemKey !== undefined) await this.idempotency.abandon(auth.keyId, idemKey);
          return result;
        }
        const text = JSON.stringify(result.body);
        const headers = result.headers ? { 'content-type': 'application/json', ...result.headers } : JSON_HEADERS;
        if (idemKey !== undefined) {
          if (result.status >= 200 && result.status < 300) await this.idempotency.complete(auth.keyId, idemKey, result.status, headers, text);
          else await this.idempotency.abandon(auth.keyId, idemKey);
        }
        return respond(c, result.status, text, headers);
      } catch (error) {
        if (idemKey !== undefined) await this.idempotency.abandon(auth.keyId, idemKey);
        throw error;
      }
    });
  }
}
