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

const OBJECT_TYPES = new Set(['object', 'strict_object', 'loose_object', 'object_with_rest']);
const WRAPPER_TYPES = new Set(['optional', 'nullable', 'nullish', 'exact_optional', 'non_optional', 'non_nullable', 'non_nullish', 'undefinedable']);

/**
 * Valibot's object and record schemas accept arrays (`[]` reads as `{}`), so a body
 * such as `{ "identity": [] }` would pass as an empty object. This walks the schema
 * beside the input and names every array that stands where an object belongs.
 */
function arraysForObjects(schema: unknown, input: unknown, path: string, out: FieldError[]): void {
  if (input === undefined || input === null) return;
  const s = schema as { type?: string; wrapped?: unknown; entries?: Record<string, unknown>; value?: unknown; item?: unknown };
  if (s.type && WRAPPER_TYPES.has(s.type)) return arraysForObjects(s.wrapped, input, path, out);
  const field = path || '(body)';
  if (s.type && (OBJECT_TYPES.has(s.type) || s.type === 'record')) {
    if (Array.isArray(input)) {
      out.push({ field, reason: 'must be an object' });
      return;
    }
    if (typeof input !== 'object') return;
    const children: [string, unknown][] = s.type === 'record' ? Object.keys(input).map((k) => [k, s.value]) : Object.entries(s.entries ?? {});
    for (const [key, child] of children) arraysForObjects(child, (input as Record<string, unknown>)[key], path ? `${path}.${key}` : key, out);
  } else if (s.type === 'array' && Array.isArray(input)) {
    input.forEach((item, i) => arraysForObjects(s.item, item, path ? `${path}.${i}` : String(i), out));
  }
}

/**
 * Validates `input` against `schema`; on failure throws `code` with one `errors` entry
 * per field.
 */
export function parseOrThrow<S extends AnySchema>(schema: S, input: unknown, code: ErrorCode): v.InferOutput<S> {
  const arrays: FieldError[] = [];
  arraysForObjects(schema, input, '', arrays);
  if (arrays.length) throw new ServiceError(code, { errors: arrays });
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  throw new ServiceError(code, { errors: toFieldErrors(result.issues) });
}
