import * as v from 'valibot';
import type { ErrorCode } from './error-codes.js';
import { ServiceError, type FieldError } from './service-error.js';

type AnySchema = v.GenericSchema<unknown, unknown>;

function issuePath(issue: v.BaseIssue<unknown>): string {
  return (issue.path ?? []).map((item) => String((item as { key: unknown }).key)).join('.');
}

function issueReason(issue: v.BaseIssue<unknown>): string {
  // Valibot phrases a missing key and an unknown key as key issues; say it plainly.
  if (issue.kind === 'schema' && issue.received === 'undefined' && issue.path?.length) return 'required';
  if (issue.type === 'strict_object' && issue.expected === 'never') return 'unknown field';
  return issue.message;
}

/** One `errors` entry per field, first issue wins, in the order the schema met them. */
export function toFieldErrors(issues: readonly v.BaseIssue<unknown>[]): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const issue of issues) {
    const field = issuePath(issue) || '(body)';
    if (seen.has(field)) continue;
    seen.add(field);
    out.push({ field, reason: issueReason(issue) });
  }
  return out;
}

/**
 * Validates `input` against `schema`; on failure throws `code` with one `errors` entry
 * per field.
 */
export function parseOrThrow<S extends AnySchema>(schema: S, input: unknown, code: ErrorCode): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  throw new ServiceError(code, { errors: toFieldErrors(result.issues) });
}
