import { type ErrorCode, getErrorSpec } from './error-codes.js';

/** One entry of a problem's `errors`: a dotted field path and a reason. */
export interface FieldError {
  field: string;
  reason: string;
  [extra: string]: unknown;
}

/** A detail in both languages the service speaks, or one string used for both. */
export type Detail = string | { en: string; es: string };

export interface ServiceErrorOptions {
  detail?: Detail;
  errors?: FieldError[];
  /** Only for codes that API.md gives two statuses (idempotency conflict: 422 or 409). */
  status?: number;
  headers?: Record<string, string>;
  /**
   * What went wrong underneath (a provider's failure): logged by the HTTP shell's
   * `onError` with the request, never sent to the client.
   */
  cause?: unknown;
}

/**
 * The only error a service throws on purpose. The HTTP shell turns it into an RFC 9457
 * problem document; anything else that escapes becomes `svc.internal.error`.
 */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: Detail | undefined;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, options: ServiceErrorOptions = {}) {
    const spec = getErrorSpec(code);
    super(
      typeof options.detail === 'string' ? options.detail : (options.detail?.en ?? spec.en),
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'ServiceError';
    this.code = code;
    this.status = options.status ?? spec.status;
    this.detail = options.detail;
    this.errors = options.errors;
    this.headers = options.headers;
  }
}

/** Shorthand for a validation-style error naming one field. */
export function fieldError(code: ErrorCode, field: string, reason: string, extra: Record<string, unknown> = {}): ServiceError {
  return new ServiceError(code, { errors: [{ field, reason, ...extra }] });
}
