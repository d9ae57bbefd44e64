import type { Context } from 'hono';
import { getErrorSpec, type ErrorCode } from './error-codes.js';
import type { ServiceError, FieldError } from './service-error.js';
import { preferredLanguage } from './language.js';
import type { AppEnv } from './context.js';
import { ownBaseUrl } from './own-origin.js';
import { respond } from './response.js';

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ErrorCode;
  requestId: string;
  errors?: FieldError[];
}

/**
 * The request's path as sent, percent-encoding kept: `instance` must be a URI reference
 * (RFC 9457), and Hono's `c.req.path` decodes it (`/a%20b` became `/a b`, `%00` a NUL)
 * while leaving `%2F` as it was (D-1166).
 */
export function pathAsSent(url: string): string {
  const start = url.indexOf('/', url.indexOf(':') + 3);
  if (start === -1) return '/';
  let end = start;
  while (end < url.length && url.charCodeAt(end) !== 0x3f && url.charCodeAt(end) !== 0x23) end++;
  return url.slice(start, end);
}

/** Builds the RFC 9457 body of a service error for this request. */
export function problemBody(c: Context<AppEnv>, error: ServiceError): ProblemDocument {
  const spec = getErrorSpec(error.code);
  const lang = preferredLanguage(c.req.header('accept-language'));
  const detail = error.detail === undefined ? spec[lang] : typeof error.detail === 'string' ? error.detail : error.detail[lang];
  const body: ProblemDocument = {
    type: `${docsBase(c)}/errors/${error.code}`,
    title: spec.title,
    status: error.status,
    detail,
    instance: pathAsSent(c.req.url),
    code: error.code,
    requestId: c.get('requestId') ?? '',
  };
  if (error.errors?.length) body.errors = error.errors;
  return body;
}

/**
 * The problem document as a response; console routes send it as plain JSON. Never
 * sniffed: a browser shown a problem that echoes client text reads it as JSON only.
 */
export function problemResponse(c: Context<AppEnv>, error: ServiceError): Response {
  c.set('problem', { code: error.code, status: error.status });
  return respond(c, error.status, JSON.stringify(problemBody(c, error)), {
    'content-type': c.get('plainJsonErrors') ? 'application/json' : 'application/problem+json',
    ...error.headers,
    'x-content-type-options': 'nosniff',
  });
}

/** `{docs_url}`: the setting, else `/docs` under the service's own address (D-870), never the `Host` header. */
export function docsBase(c: Context<AppEnv>): string {
  const configured = c.get('docsUrl');
  if (configured) return configured.replace(/\/+$/, '');
  return `${ownBaseUrl(c)}/docs`;
}
