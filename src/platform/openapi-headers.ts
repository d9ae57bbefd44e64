/** A response header as the OpenAPI description declares it. */
export interface HeaderDoc {
  description: string;
  /** Whether every answer of that response carries it. */
  required?: boolean;
  schema: object;
}

const text = { type: 'string' };
const count = { type: 'integer', minimum: 0 };

/**
 * The headers the HTTP shell and the route wrapper send (CONTRACT, Conventions),
 * declared once under `components.headers`, keyed by the name they are sent with.
 */
export const SHARED_HEADERS: Record<string, { component: string } & HeaderDoc> = {
  'x-request-id': {
    component: 'RequestId',
    required: true,
    schema: { ...text, pattern: '^req_' },
    description: 'The id of this request (`req_...`): the `requestId` of a problem document and of the server log.',
  },
  'X-RateLimit-Limit': {
    component: 'XRateLimitLimit',
    required: true,
    schema: count,
    description: 'Requests the key may send per window (the budget is shared by every `/v1` route).',
  },
  'X-RateLimit-Remaining': {
    component: 'XRateLimitRemaining',
    required: true,
    schema: count,
    description: 'Requests left in this window, this one counted as spent.',
  },
  'X-RateLimit-Reset': { component: 'XRateLimitReset', required: true, schema: count, description: 'When the window ends, in UTC epoch seconds.' },
  RateLimit: {
    component: 'RateLimit',
    required: true,
    schema: { ...text, examples: ['"default";r=599;t=60'] },
    description: 'IETF RateLimit structured field: `"default";r=<remaining>;t=<seconds until the window ends>`.',
  },
  'RateLimit-Policy': {
    component: 'RateLimitPolicy',
    required: true,
    schema: { ...text, examples: ['"default";q=600;w=60'] },
    description: 'IETF RateLimit-Policy structured field: `"default";q=<limit>;w=<window seconds>`.',
  },
  'Retry-After': {
    component: 'RetryAfter',
    schema: { type: 'integer', minimum: 1 },
    description:
      'Seconds to wait, never fewer than the `t` of `RateLimit`. Sent with `svc.rate_limit.exceeded`, not with the daily cap (`svc.usage.budget_exceeded`).',
  },
  'X-Content-Type-Options': {
    component: 'XContentTypeOptions',
    required: true,
    schema: { type: 'string', const: 'nosniff' },
    description: '`nosniff` on every problem document: a browser reads it as JSON, never as a page or a script (D-872).',
  },
  'Idempotent-Replayed': {
    component: 'IdempotentReplayed',
    schema: { type: 'string', const: 'true' },
    description: '`true` when this is the stored answer to an earlier request with the same `Idempotency-Key` and body: nothing was created or charged again.',
  },
};

/** What decides the headers of one response of one route. */
export interface HeaderContext {
  status: number;
  /** A `/v1` route behind the API key gate. */
  gated: boolean;
  /** A route that honours `Idempotency-Key`. */
  idempotent: boolean;
  /** A problem document (status 0: the `default` response). */
  problem?: boolean;
  /** Headers the route declares itself (a file's `ETag`...). */
  own?: Record<string, HeaderDoc> | undefined;
}

const RATE_LIMIT = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit', 'RateLimit-Policy'];
const ref = (name: string) => ({ $ref: `#/components/headers/${SHARED_HEADERS[name]!.component}` });

// Answers that may come before the gate counted the request: 401 (no key), 500 (an
// unexpected failure, or a fault, which answers before the gate), 503 (a shared store
// out of reach may fail the key check itself, D-206), and the faults' `default` (0).
const BEFORE_THE_GATE = new Set([0, 401, 500, 503]);

/**
 * The `headers` of one response: the request id on every answer; behind the gate the
 * rate-limit headers on every answer the gate counted (not `BEFORE_THE_GATE`),
 * `Retry-After` on 429; `Idempotent-Replayed` on the success of a replayable request;
 * `X-Content-Type-Options` on every problem.
 */
export function responseHeaders(ctx: HeaderContext): Record<string, object> {
  const out: Record<string, object> = { 'x-request-id': ref('x-request-id') };
  if (ctx.problem) out['X-Content-Type-Options'] = ref('X-Content-Type-Options');
  if (ctx.gated && !BEFORE_THE_GATE.has(ctx.status)) for (const name of RATE_LIMIT) out[name] = ref(name);
  if (ctx.gated && ctx.status === 429) out['Retry-After'] = ref('Retry-After');
  if (ctx.idempotent && ctx.status >= 200 && ctx.status < 300) out['Idempotent-Replayed'] = ref('Idempotent-Replayed');
  for (const [name, doc] of Object.entries(ctx.own ?? {})) out[name] = { description: doc.description, required: doc.required ?? false, schema: doc.schema };
  return out;
}

/** `components.headers`. */
export function headerComponents(): Record<string, object> {
  return Object.fromEntries(
    Object.values(SHARED_HEADERS).map(({ component, description, required, schema }) => [component, { description, required: required ?? false, schema }]),
  );
}
