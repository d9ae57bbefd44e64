import * as v from 'valibot';
import type { ConversionConfig } from '@valibot/to-json-schema';
import type { ErrorCode } from './error-codes.js';
import { COMPONENT_NAME } from './named-schema.js';
import { ServiceError, type FieldError } from './service-error.js';

type AnySchema = v.GenericSchema<unknown, unknown>;

/** How deep a client's JSON may nest (arrays and objects); deeper is refused with 400 (decisions, D-134). */
export const MAX_JSON_DEPTH = 64;

const LONE_SURROGATE = 'must be well-formed Unicode text (it holds a lone surrogate)';

/**
 * Length in characters as people and JSON Schema's `minLength`/`maxLength` count them (decisions, D-136):
 * Unicode code points, so an emoji is one character where UTF-16 counts two.
 */
export function charCount(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

// A code point count is never above the UTF-16 length, nor below half of it: most
// strings need no counting, and a long one is refused without reading it through.
const atLeast = (min: number) => (text: string) => text.length >= min && (text.length <= min * 2 ? charCount(text) >= min : true);
const atMost = (max: number) => (text: string) => text.length <= max || (text.length <= max * 2 && charCount(text) <= max);

const checkText = (test: (text: string) => boolean, message: string | undefined) =>
  message === undefined ? v.check<string>(test) : v.check<string, string>(test, message);

/** At least `min` characters (code points); shown as `minLength` in JSON Schema. */
export function minChars(min: number, message?: string) {
  return { ...checkText(atLeast(min), message), type: 'min_chars' as const, chars: min };
}

/** At most `max` characters (code points); shown as `maxLength` in JSON Schema. */
export function maxChars(max: number, message?: string) {
  return { ...checkText(atMost(max), message), type: 'max_chars' as const, chars: max };
}

/** Refuses a string holding a lone surrogate: stored as UTF-8 it would not read back the same. */
export function wellFormed(message = LONE_SURROGATE) {
  return { ...v.check<string, string>((text) => text.isWellFormed(), message), type: 'well_formed' as const };
}

export interface TextRule {
  /** Fewest characters; default 0. */
  min?: number;
  max: number;
  /** Trim white space before counting (and store it trimmed). */
  trim?: boolean;
  /** The reason for too short or too long; default `must be <min> to <max> characters`. */
  message?: string;
  /** The reason for too short, when it differs. */
  minMessage?: string;
  /**
   * One line shown as a name or a title (D-1182): no control character (`\p{Cc}`: a NUL,
   * an escape sequence, a line break), no line or paragraph separator and no bidi
   * embedding, override or isolate (text that reads otherwise than it is stored); with
   * `min`, not blank (white space and invisible characters alone are no name).
   */
  line?: boolean;
}

// Controls, line and paragraph separators, bidi embeddings/overrides (U+202A-E) and isolates (U+2066-9).
const NOT_IN_A_LINE = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
const ONE_LINE_REASON = 'must be one line without control characters or bidi overrides';
// White space, and what Unicode says is never seen (zero-width spaces and joiners, BOM, soft hyphen...).
const BLANK = /^[\s\p{Default_Ignorable_Code_Point}]*$/u;

/** Whether `text` shows nothing: only white space and default-ignorable characters (U+200B, U+FEFF...). */
function isBlank(text: string): boolean {
  return BLANK.test(text);
}

/** Refuses a text that shows nothing (D-1182): `trim()` keeps a zero-width space. */
export function notBlank(message = 'must not be blank') {
  return { ...v.check<string, string>((text) => !isBlank(text), message), type: 'not_blank' as const };
}

/** Refuses a control character, a line separator or a bidi override in one line of text (D-1182). */
export function oneLine(message = ONE_LINE_REASON) {
  return { ...v.check<string, string>((text) => !NOT_IN_A_LINE.test(text), message), type: 'one_line' as const };
}

/**
 * A client string: well-formed Unicode (no lone surrogate), optionally trimmed, `min`
 * to `max` characters counted in code points. Every schema's text fields use this.
 */
export function clientText(rule: TextRule) {
  const min = rule.min ?? 0;
  const message = rule.message ?? (min > 0 ? `must be ${min} to ${rule.max} characters` : `must be at most ${rule.max} characters`);
  const length = [...(min > 0 ? [minChars(min, rule.minMessage ?? message)] : []), maxChars(rule.max, message)] as const;
  const line = rule.line ? [oneLine(), ...(min > 0 ? [notBlank(rule.minMessage ?? 'must not be blank')] : [])] : [];
  return rule.trim ? v.pipe(v.string(), wellFormed(), v.trim(), ...length, ...line) : v.pipe(v.string(), wellFormed(), ...length, ...line);
}

/**
 * A whole number from `min` to `max` sent as text (a query parameter): checked, then
 * read as a number. JSON Schema shows it as the integer it stands for.
 */
export function integerText(min: number, max: number, description = '') {
  const message = `must be an integer from ${min} to ${max}`;
  const shown = { ...v.metadata<string, Record<never, never>>({}), type: 'integer_text' as const, minimum: min, maximum: max, description };
  return v.pipe(v.string(), v.regex(/^\d+$/, message), shown, v.transform(Number), v.minValue(min, message), v.maxValue(max, message));
}

/**
 * What JSON Schema shows for the whole value, in place of what its actions would give: for
 * a rule valibot checks after a transform (a trim) that a schema of the raw value must
 * state otherwise (topic tags, D-1192). Placed last in a pipe.
 */
export function shownAs(shown: Record<string, unknown>) {
  return { ...v.metadata<string, Record<never, never>>({}), type: 'shown_as' as const, shown };
}

/**
 * A body field the service reads only to refuse it with its own code (`agentId` in a chat
 * body: the path names the agent): any value passes validation, so the service can say
 * why, and the description says no value is valid (`enum: []`), which a generated client
 * types as `never`, so passing it does not compile (D-1120).
 */
export function neverAccepted(description: string) {
  const shown = { ...v.metadata<unknown, Record<never, never>>({}), type: 'never_accepted' as const, description };
  return v.pipe(v.unknown(), shown);
}

/** Renders the text actions above in JSON Schema (the OpenAPI description, the fixture schema). */
export const textActionsToJsonSchema: NonNullable<ConversionConfig['overrideAction']> = ({ valibotAction, jsonSchema }) => {
  const action = valibotAction as { type: string; chars?: number; minimum?: number; maximum?: number; description?: string; metadata?: object };
  // A component name is for the OpenAPI description only (`openapi-schemas.ts`): elsewhere the schema is inline.
  if (action.type === 'metadata' && action.metadata && COMPONENT_NAME in action.metadata) {
    const { [COMPONENT_NAME]: _name, ...rest } = jsonSchema as Record<string, unknown>;
    return rest;
  }
  if (action.type === 'integer_text') {
    const { pattern: _digits, ...rest } = jsonSchema;
    return { ...rest, type: 'integer', minimum: action.minimum!, maximum: action.maximum!, ...(action.description && { description: action.description }) };
  }
  if (action.type === 'min_chars') return { ...jsonSchema, minLength: Math.max(jsonSchema.minLength ?? 0, action.chars!) };
  if (action.type === 'max_chars') return { ...jsonSchema, maxLength: Math.min(jsonSchema.maxLength ?? Infinity, action.chars!) };
  if (action.type === 'well_formed' || action.type === 'not_blank') return jsonSchema;
  // The same characters as a pattern a client can check (ECMA-262 without property escapes).
  if (action.type === 'one_line') return { ...jsonSchema, pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]*$' };
  if (action.type === 'shown_as') return { ...(action as unknown as { shown: Record<string, unknown> }).shown };
  if (action.type === 'never_accepted') return { ...jsonSchema, enum: [], description: action.description! };
  return undefined;
};

interface Frame {
  value: object;
  depth: number;
  parent: Frame | undefined;
  key: string;
}

function pathOf(frame: Frame | undefined, key?: string): string {
  const keys = key === undefined ? [] : [key];
  for (let f = frame; f?.parent; f = f.parent) keys.push(f.key);
  return keys.reverse().join('.') || '(body)';
}

/**
 * Walks a client value without recursion (a 6,000-deep array must not reach the stack)
 * and answers the first problem: nesting past `MAX_JSON_DEPTH`, or a string or key
 * holding a lone surrogate.
 */
export function findUnsafeValue(root: unknown): FieldError | undefined {
  if (typeof root === 'string') return root.isWellFormed() ? undefined : { field: '(body)', reason: LONE_SURROGATE };
  if (root === null || typeof root !== 'object') return undefined;
  const stack: Frame[] = [{ value: root, depth: 1, parent: undefined, key: '' }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.depth > MAX_JSON_DEPTH) return { field: pathOf(frame), reason: `must not nest deeper than ${MAX_JSON_DEPTH} levels` };
    const container = frame.value as Record<string, unknown>;
    const keys = Array.isArray(container) ? undefined : Object.keys(container);
    const size = keys ? keys.length : (container as unknown as unknown[]).length;
    for (let i = 0; i < size; i++) {
      const key = keys ? keys[i]! : String(i);
      if (keys && !key.isWellFormed()) return { field: pathOf(frame, key.toWellFormed()), reason: `the field name ${LONE_SURROGATE}` };
      const value = container[key];
      if (typeof value === 'string') {
        if (!value.isWellFormed()) return { field: pathOf(frame, key), reason: LONE_SURROGATE };
      } else if (value !== null && typeof value === 'object') {
        stack.push({ value, depth: frame.depth + 1, parent: frame, key });
      }
    }
  }
  return undefined;
}

// Bodies `readJson` has walked: `parseOrThrow` need not walk them again.
const vetted = new WeakSet<object>();

/**
 * Throws `code` naming the field when `findUnsafeValue` finds a problem in `value`.
 * `remember` marks a value nothing else holds yet (a freshly parsed body) as walked.
 */
export function assertSafeValue(value: unknown, code: ErrorCode, remember = false): void {
  const isObject = value !== null && typeof value === 'object';
  if (isObject && vetted.has(value)) return;
  const problem = findUnsafeValue(value);
  if (problem) throw new ServiceError(code, { errors: [problem] });
  if (isObject && remember) vetted.add(value);
}

function issuePath(issue: v.BaseIssue<unknown>): string {
  return (issue.path ?? []).map((item) => String((item as { key: unknown }).key)).join('.');
}

/** What a value of the wrong type is told, by the type its schema wants (D-003's short phrases, not valibot's). */
const TYPE_REASONS: Readonly<Record<string, string>> = {
  object: 'must be an object',
  strict_object: 'must be an object',
  loose_object: 'must be an object',
  object_with_rest: 'must be an object',
  record: 'must be an object',
  array: 'must be an array',
  string: 'must be a string',
  number: 'must be a number',
  boolean: 'must be true or false',
};

function issueReason(issue: v.BaseIssue<unknown>): string {
  // Valibot phrases a missing key and an unknown key as key issues; say it plainly.
  if (issue.kind === 'schema' && issue.received === 'undefined' && issue.path?.length) return 'required';
  if (issue.type === 'strict_object' && issue.expected === 'never') return 'unknown field';
  // Its own message only when the schema gave one (valibot's default starts so).
  if (issue.kind === 'schema' && issue.message.startsWith('Invalid type:')) return TYPE_REASONS[issue.type] ?? ruleReason(issue) ?? issue.message;
  if (issue.message.startsWith('Invalid ')) return ruleReason(issue) ?? issue.message;
  return issue.message;
}

/**
 * A rule valibot words itself (`Invalid value: Expected <=86400 but received 100000`,
 * `Invalid type: Expected ("test" | "live") but received "prod"`), said as D-003 says
 * the others (decisions, D-1169); undefined for one without a phrase here.
 */
function ruleReason(issue: v.BaseIssue<unknown>): string | undefined {
  const requirement = (issue as { requirement?: unknown }).requirement;
  switch (issue.type) {
    case 'picklist':
    case 'enum':
    case 'literal':
      // `("test" | "live")` reads `must be test or live`, as the schemas' own reasons say (`must be es or en`).
      return `must be ${(issue.expected ?? '')
        .replace(/^\((.*)\)$/, '$1')
        .split(' | ')
        .map((option) => option.replace(/^"(.*)"$/, '$1'))
        .join(', ')}`.replace(/, ([^,]*)$/, ' or $1');
    case 'min_value':
      return typeof requirement === 'number' ? `must be at least ${requirement}` : undefined;
    case 'max_value':
      return typeof requirement === 'number' ? `must be at most ${requirement}` : undefined;
    case 'integer':
      return 'must be an integer';
    case 'min_length':
    case 'max_length': {
      if (typeof requirement !== 'number') return undefined;
      const unit = Array.isArray(issue.input) ? (requirement === 1 ? 'item' : 'items') : requirement === 1 ? 'character' : 'characters';
      return `must have ${issue.type === 'min_length' ? 'at least' : 'at most'} ${requirement} ${unit}`;
    }
    default:
      return undefined;
  }
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
  if (s.type && WRAPPER_TYPES.has(s.type)) {
    arraysForObjects(s.wrapped, input, path, out);
    return;
  }
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
 * per field. Nesting past `MAX_JSON_DEPTH` and lone surrogates are refused first.
 */
export function parseOrThrow<S extends AnySchema>(schema: S, input: unknown, code: ErrorCode): v.InferOutput<S> {
  assertSafeValue(input, code);
  const arrays: FieldError[] = [];
  arraysForObjects(schema, input, '', arrays);
  if (arrays.length) throw new ServiceError(code, { errors: arrays });
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  throw new ServiceError(code, { errors: toFieldErrors(result.issues) });
}
