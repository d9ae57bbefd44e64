import { isDeepStrictEqual } from 'node:util';
import * as v from 'valibot';
import { StoredTimestampSchema } from '../../src/platform/stored.js';
import { clientText, findUnsafeValue, toFieldErrors } from '../../src/platform/validation.js';

// Column rules of the state gate: what one cell of a row may hold, as the service writes it.

type AnySchema = v.GenericSchema<unknown, unknown>;

/** An id the service draws (`prj_01j...`; re-crawl jobs and chunks add `_<suffix>`), by its prefix. */
export const id = (prefix: string) =>
  v.pipe(
    v.string('must be an id'),
    v.maxLength(120, 'must be an id'),
    v.regex(new RegExp(`^${prefix}_[0-9a-z]+(?:_[0-9a-z]+)*$`), `must be an id starting with ${prefix}_`),
  );

/** A timestamp as the service writes it. */
export const timestamp = StoredTimestampSchema;

/** A whole number from `min` to `max` (finite, safe). */
export const int = (min = 0, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(
    v.number('must be a number'),
    v.integer('must be a whole number'),
    v.minValue(min, `must be from ${min} to ${max}`),
    v.maxValue(max, `must be from ${min} to ${max}`),
  );

/** A boolean stored as 0 or 1. */
export const flag = v.picklist([0, 1], 'must be 0 or 1');

/** One of a closed set of words. */
export const oneOf = <T extends string>(values: readonly T[]) => v.picklist(values as T[], `must be one of ${values.join(', ')}`);

/** Text of at most `max` characters (well-formed Unicode). */
export const text = (max: number, min = 0) => clientText({ min, max });

/** A hex SHA-256, as stored for key hashes, content hashes and file hashes. */
export const sha256 = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex SHA-256'));

/** A language the service writes (`es` or `en`). */
export const lang = oneOf(['es', 'en'] as const);

function isCanonicalBase64(text: string): boolean {
  return Buffer.from(text, 'base64').toString('base64') === text;
}

/**
 * Bytes: `{ "$bytes": "<base64>" }` in a state document (what an export writes), or bytes
 * already; read into a Buffer. Base64 that does not read back the same is refused.
 */
export const bytes = v.pipe(
  v.union(
    [
      v.pipe(
        v.strictObject({ $bytes: v.string() }),
        v.check((b) => isCanonicalBase64(b.$bytes), 'must be base64'),
        v.transform((b) => Buffer.from(b.$bytes, 'base64')),
      ),
      v.pipe(
        v.instance(Uint8Array),
        v.transform((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)),
      ),
    ],
    'must be bytes ({ "$bytes": "<base64>" })',
  ),
);

/**
 * A JSON column: text that parses to a value `schema` accepts, and that is already in the
 * form the service writes (the schema's output equals the value: trimmed, lowercased,
 * defaults present). The reason names the path inside the value.
 */
export function json<S extends AnySchema>(schema: S, what: string) {
  return v.pipe(
    v.string(`must be JSON text: ${what}`),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      let value: unknown;
      try {
        value = JSON.parse(dataset.value);
      } catch {
        addIssue({ message: `must be JSON text: ${what}` });
        return;
      }
      const reason = jsonValueProblem(schema, value);
      if (reason) addIssue({ message: `must be ${what}: ${reason}` });
    }),
  );
}

/** Why `value` is not what `schema` stores (undefined when it is). */
export function jsonValueProblem(schema: AnySchema, value: unknown): string | undefined {
  // Too deep to walk, or text that would not read back the same: refused before any schema walks it.
  const unsafe = findUnsafeValue(value);
  if (unsafe) return unsafe.field === '(body)' ? unsafe.reason : `${unsafe.field}: ${unsafe.reason}`;
  // Valibot's object schemas take an array for an object: say it first.
  if (Array.isArray(value) && isObjectSchema(schema)) return 'an object, not an array';
  const result = v.safeParse(schema, value);
  if (!result.success) {
    const first = toFieldErrors(result.issues)[0]!;
    return first.field === '(body)' ? first.reason : `${first.field}: ${first.reason}`;
  }
  if (!isDeepStrictEqual(result.output, value)) return 'not in the form the service writes it (trimmed, lowercase, every field present)';
  return undefined;
}

function isObjectSchema(schema: AnySchema): boolean {
  const s = schema as { type?: string; pipe?: AnySchema[] };
  if (s.type && ['object', 'strict_object', 'loose_object'].includes(s.type)) return true;
  return s.pipe !== undefined && s.pipe.length > 0 && s.pipe[0] !== schema && isObjectSchema(s.pipe[0]!);
}

/** A value `schema` accepts as it is stored (its output is the value itself). */
export function exact<S extends AnySchema>(schema: S, what: string) {
  return v.pipe(
    v.unknown(),
    v.rawCheck(({ dataset, addIssue }) => {
      const reason = jsonValueProblem(schema, dataset.value);
      if (reason) addIssue({ message: `must be ${what}: ${reason}` });
    }),
  );
}
