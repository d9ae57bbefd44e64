import * as v from 'valibot';
import { isPostgresUrl } from '../src/db/dialects/postgres/postgres-url.js';
import type { EmulatorOptions } from './options.js';

/**
 * A `createEmulator` option that cannot be used: its message names each option at fault
 * and what it takes (decisions, D-743). A `TypeError`, as a wrong argument is in Node.
 */
export class EmulatorOptionsError extends TypeError {
  override name = 'EmulatorOptionsError';
  constructor(
    message: string,
    /** Each option at fault (`seed`, `siteChat.visitorTurns`) and what it takes. */
    readonly errors: { field: string; reason: string }[],
  ) {
    super(message);
  }
}

const whole = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(
    v.number(),
    v.integer(),
    v.minValue(min),
    v.maxValue(max),
    v.description(max === Number.MAX_SAFE_INTEGER ? `a whole number from ${min}` : `a whole number from ${min} to ${max}`),
  );
const text = v.pipe(v.string(), v.nonEmpty(), v.description('a non-empty string'));

/**
 * The admin token: what a client can send after `Bearer ` (D-1173). HTTP drops the white
 * space around a header's value, so `' tok '` could never be matched; a space or a
 * character outside printable ASCII cannot be sent as such either.
 */
export const AdminTokenSchema = v.pipe(
  v.string(),
  // The CLI says `--admin-token takes <message>`; createEmulator `must be <description>`.
  v.regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces (it is sent as Authorization: Bearer <t>)'),
  v.description('printable ASCII without spaces'),
);
const fn = v.pipe(v.function(), v.description('a function'));
/** An object with these methods (an instance of a class of the caller's is fine). */
const withMethods = (...names: string[]) =>
  v.pipe(
    v.custom<object>(
      (value) => typeof value === 'object' && value !== null && names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function'),
    ),
    v.description(`an object with ${names.map((n) => `${n}()`).join(' and ')}`),
  );
const plainObject = (what: string) =>
  v.pipe(
    v.custom<object>((value) => typeof value === 'object' && value !== null && !Array.isArray(value)),
    v.description(what),
  );
/** A strict object whose description lists its fields: an unknown field is refused by name. */
const fields = <E extends v.ObjectEntries>(entries: E) => v.pipe(v.strictObject(entries), v.description(`an object of ${Object.keys(entries).join(', ')}`));

/**
 * A seed as the id generator and the signing secret take it: the digits of its number,
 * so `"01"`, `"1"` and `1` are one seed (D-1096). Only for a seed the schema took (a
 * whole number, or up to 15 digits: exact as a number).
 */
export function seedText(seed: string | number): string {
  return String(Number(seed));
}

/** `mysql://...` is not taken for a SQLite file name (decisions, D-745). */
const SQLITE_OR_POSTGRES = v.pipe(
  v.string(),
  v.nonEmpty(),
  v.check((value) => isPostgresUrl(value) || !/^[a-z][a-z0-9+.-]+:\/\//i.test(value)),
);

/**
 * One schema per option of `EmulatorOptions`; `satisfies` makes a missing or an extra
 * one a compile error, so the type and the check cannot drift apart.
 */
const ENTRIES = {
  db: v.pipe(
    v.union([
      SQLITE_OR_POSTGRES,
      v.variant('kind', [
        v.strictObject({ kind: v.literal('memory') }),
        v.strictObject({ kind: v.literal('file'), path: text }),
        v.strictObject({ kind: v.literal('pglite'), dataDir: v.optional(text) }),
        v.strictObject({ kind: v.literal('postgres'), url: v.pipe(v.string(), v.check(isPostgresUrl)), poolSize: v.optional(whole(1)) }),
      ]),
    ]),
    v.description('a SQLite file path, a postgres:// URL, or { kind: "memory" | "file" | "pglite" | "postgres", ... }'),
  ),
  seed: v.pipe(v.union([whole(0), v.pipe(v.string(), v.regex(/^\d{1,15}$/))]), v.description('a whole number from 0, or a string of its digits')),
  fixtures: v.pipe(v.union([text, plainObject('')]), v.description('"demo", "none", a fixture file path, or a fixture object')),
  state: plainObject('a state document (an object)'),
  adminToken: AdminTokenSchema,
  allowedHosts: v.pipe(v.union([v.literal('all'), v.array(v.string())]), v.description('"all" or an array of host names')),
  siteChat: fields({
    visitorTurns: v.optional(whole(1)),
    visitorWindowSeconds: v.optional(whole(1)),
    ownerReserveShare: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1), v.description('a number from 0 to 1'))),
    ownerReserveMin: v.optional(whole(0)),
    trustForwardedFor: v.optional(v.pipe(v.boolean(), v.description('true or false'))),
  }),
  workers: fields({
    maxThreads: v.optional(whole(1)),
    idleTimeoutMs: v.optional(whole(0)),
    niceIncrement: v.optional(whole(0, 19)),
    taskTimeoutMs: v.optional(whole(1)),
    maxOldGenerationMb: v.optional(whole(1)),
    maxYoungGenerationMb: v.optional(whole(1)),
    stackMb: v.optional(whole(1)),
    maxBufferMb: v.optional(whole(1)),
  }),
  siteDomain: text,
  docsUrl: v.pipe(
    v.string(),
    v.check((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol)),
    v.description('an http(s) URL'),
  ),
  liveFetch: v.pipe(v.boolean(), v.description('true or false')),
  jobConcurrency: whole(1),
  leaseMs: whole(300),
  lexiconWaitMs: whole(0),
  log: fn,
  embedder: withMethods('embed'),
  translator: withMethods('translate'),
  chatModel: withMethods('reply'),
} satisfies { [K in keyof EmulatorOptions]-?: v.GenericSchema };

/** The names of `createEmulator`'s options, from the schema that checks them. */
export const EMULATOR_OPTION_NAMES = Object.keys(ENTRIES) as (keyof EmulatorOptions)[];

const OPTIONS = v.object(Object.fromEntries(Object.entries(ENTRIES).map(([name, schema]) => [name, v.optional(schema)])));

/** What a schema takes, from the nearest `description` of it or of the schema around it. */
function takes(schema: unknown): string | undefined {
  const pipe = (schema as { pipe?: { type: string; description?: string }[] } | undefined)?.pipe;
  return pipe?.find((item) => item.type === 'description')?.description;
}

function shown(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  const text = typeof value === 'string' ? JSON.stringify(value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@]*):[^/@]*@/i, '$1:***@')) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** A near name for a misspelt option (`sede`: `seed`), or nothing. */
function nearest(name: string): string | undefined {
  const distance = (a: string, b: string) => {
    const row = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      let previous = row[0]!;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const current = row[j]!;
        row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1));
        previous = current;
      }
    }
    return row[b.length]!;
  };
  const [best] = EMULATOR_OPTION_NAMES.map((option) => [option, distance(name.slice(0, 40), option)] as const).sort((a, b) => a[1] - b[1]);
  return best && best[1] <= 2 ? best[0] : undefined;
}

/**
 * Checks `createEmulator`'s options before anything is opened (D-743): an unknown option or
 * a value of the wrong kind throws an `EmulatorOptionsError` naming it. The options are
 * only checked, never copied: ports keep their identity.
 */
export function checkEmulatorOptions(options: unknown): asserts options is EmulatorOptions {
  const errors: { field: string; reason: string }[] = [];
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    errors.push({ field: '(options)', reason: `must be an object of options; got ${shown(options)}` });
  } else {
    for (const name of Object.keys(options)) {
      if (name in ENTRIES) continue;
      const near = nearest(name);
      errors.push({ field: name, reason: `is not an option of createEmulator${near ? ` (did you mean ${near}?)` : ''}` });
    }
    const result = v.safeParse(OPTIONS, options);
    if (!result.success) {
      const seen = new Set<string>();
      for (const issue of result.issues) {
        const keys = (issue.path ?? []).map((item) => String(item.key));
        const field = keys.join('.');
        if (seen.has(keys[0]!)) continue;
        seen.add(keys[0]!);
        // The nearest schema that says what it takes: the option's, or its field's.
        let schema: unknown = ENTRIES[keys[0] as keyof typeof ENTRIES];
        let what = takes(schema);
        for (const key of keys.slice(1)) {
          schema = (schema as { pipe?: { entries?: Record<string, unknown> }[] }).pipe?.[0]?.entries?.[key];
          const wrapped = (schema as { wrapped?: unknown } | undefined)?.wrapped ?? schema;
          const found = takes(wrapped);
          if (found === undefined) break;
          what = found;
          schema = wrapped;
        }
        const unknownField = issue.type === 'strict_object' && issue.expected === 'never';
        errors.push({
          field,
          reason: unknownField ? `is not a field of ${keys.slice(0, -1).join('.')} (${what})` : `must be ${what ?? 'valid'}; got ${shown(issue.input)}`,
        });
      }
    }
  }
  if (errors.length) throw new EmulatorOptionsError(`createEmulator: ${errors.map((e) => `${e.field} ${e.reason}`).join('; ')}`, errors);
}

/** What `listen()` takes: a TCP port (0: any free one), a host name or address, a line logger. */
export const ListenOptionsSchema = v.strictObject({
  port: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(65_535))),
  host: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  log: v.optional(v.custom<(line: string) => void>((value) => typeof value === 'function', 'must be a function')),
});

/**
 * What `exportState` and `importState` take (D-1176): the options the state functions
 * read internally (`trusted`, the prebuilt demo's pass past the gate) are not among them.
 */
export const StateTransferOptionsSchema = v.strictObject({
  plainHashes: v.optional(v.boolean()),
});

/** A workspace id as the members taking one read it: a string (any other is the caller's slip, not a 404). */
export const WorkspaceIdArgSchema = v.object({ workspaceId: v.string('must be a string') });

/** `removeFault`'s id, read the same way: a string (one the fault list lacks is a 404, D-1196). */
export const FaultIdArgSchema = v.object({ faultId: v.string('must be a string') });

/** `clock.advance`'s argument: a whole number of milliseconds, as `POST /_emulator/clock` takes it. */
export const AdvanceArgSchema = v.object({
  advanceMs: v.pipe(v.number('must be a number of milliseconds'), v.integer('must be whole milliseconds'), v.minValue(0, 'time only moves forward')),
});
