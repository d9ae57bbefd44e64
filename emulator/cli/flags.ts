import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import * as v from 'valibot';
import { isPostgresUrl } from '../../src/db/dialects/postgres/postgres-url.js';
import { parseAllowedHosts, type AllowedHosts } from '../control-plane-guard.js';
import { AdminTokenSchema, seedText } from '../options-schema.js';

/**
 * One CLI flag (decisions, D-743): the usage, the environment variable, the default and
 * the check of its value are written here once; the help text, `parseArgs`' table, the
 * type of `CliOptions` and the checks all come from `FLAGS`.
 */
export interface FlagSpec<T = unknown> {
  /** The value's name in the usage (`<n>`); none for an on/off flag. */
  arg?: string;
  short?: string;
  /** The variable that sets it when the flag is not given (an empty one counts as unset). */
  env?: `SVC_EMULATOR_${string}`;
  /** What it does, for `--help`. */
  help: string;
  /** The default, as `--help` says it. */
  shows?: string;
  /** Given more than once, or comma-separated (the variable: comma-separated). */
  multiple?: true;
  /** Checks the text given (a list for `multiple`) and converts it; an issue's message says what the flag takes. */
  schema?: v.GenericSchema<string, T> | v.GenericSchema<string[], T>;
  /** The value when neither the flag nor its variable is given. */
  default?: T;
  /** The default under `exec`, when it differs. */
  execDefault?: T;
}

const TAKES_PORT = 'an integer from 0 to 65535';
const integer = (takes: string, min: number, max: number) =>
  v.pipe(v.string(), v.regex(/^\d{1,9}$/, takes), v.transform(Number), v.minValue(min, takes), v.maxValue(max, takes));
const text = v.pipe(v.string(), v.nonEmpty('a value'));

/** An unknown URL scheme is not taken for a file name (`mysql://...` would make a SQLite file `mysql:`). */
const URL_SCHEME = /^([a-z][a-z0-9+.-]+):\/\//i;

/** `--db`: a PostgreSQL URL, or a SQLite file whose folder exists (decisions, D-745). */
const DB = v.pipe(
  v.string(),
  v.nonEmpty('a SQLite file or a postgres:// URL'),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const value = dataset.value;
    if (isPostgresUrl(value)) return;
    const scheme = URL_SCHEME.exec(value)?.[1];
    if (scheme) return addIssue({ message: `a SQLite file or a postgres:// URL (${scheme}: is not a database svc-emulator speaks)` });
    const folder = dirname(value);
    const found = statSync(folder, { throwIfNoEntry: false });
    if (!found) return addIssue({ message: `a SQLite file in an existing folder (there is no folder ${folder})` });
    if (!found.isDirectory()) return addIssue({ message: `a SQLite file in a folder (${folder} is not one)` });
    if (statSync(value, { throwIfNoEntry: false })?.isDirectory()) addIssue({ message: 'a SQLite file, not a folder' });
  }),
);

const HTTP_URL = v.pipe(
  v.string(),
  v.check((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'an http(s) URL'),
);

const ALLOWED_HOSTS = v.pipe(
  // Each value given must hold a name: `--allowed-host ''` is a missing value, as for every flag.
  v.array(
    v.pipe(
      v.string(),
      v.check((value) => value.trim() !== '', 'a value'),
    ),
  ),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    try {
      return parseAllowedHosts(dataset.value);
    } catch (error) {
      const entry = /"([^"]*)"/.exec((error as Error).message)?.[1];
      addIssue({
        message: `host names, .example.test for a domain and the names under it, IP addresses, or all${entry === undefined ? '' : ` ("${entry}" is none of them)`}`,
      });
      return NEVER;
    }
  }),
) satisfies v.GenericSchema<string[], AllowedHosts>;

/** Every flag of `svc-emulator` and `svc-emulator exec`, in the order `--help` lists them. */
export const FLAGS = {
  port: {
    arg: '<n>',
    env: 'SVC_EMULATOR_PORT',
    help: 'port to listen on; 0 picks a free one',
    shows: '4010; exec: a free port',
    schema: integer(TAKES_PORT, 0, 65535),
    default: 4010,
    execDefault: 0,
  },
  host: { arg: '<addr>', env: 'SVC_EMULATOR_HOST', help: 'address to bind', shows: '127.0.0.1', schema: text, default: '127.0.0.1' },
  db: {
    arg: '<file|url>',
    env: 'SVC_EMULATOR_DB',
    help: 'SQLite file, whose state survives restarts; or postgres://user:pass@host:port/db, which several emulators may share',
    shows: 'in memory',
    schema: DB,
  },
  lease: {
    arg: '<ms>',
    env: 'SVC_EMULATOR_LEASE_MS',
    help: "with a shared database: how long a killed emulator's jobs wait before another takes them over",
    shows: '15000',
    schema: integer('milliseconds, at least 300', 300, 999_999_999),
  },
  fixtures: {
    arg: '<file|none|demo>',
    env: 'SVC_EMULATOR_FIXTURES',
    help: 'what a new store starts with: a fixture file, none, or the bundled demo',
    shows: 'demo',
    schema: text,
    default: 'demo',
  },
  import: { arg: '<file>', env: 'SVC_EMULATOR_IMPORT', help: 'start from a state file instead of the fixtures', schema: text },
  'export-on-exit': { arg: '<file>', env: 'SVC_EMULATOR_EXPORT_ON_EXIT', help: 'write the state to this file on a clean stop', schema: text },
  'write-env': {
    arg: '<file>',
    env: 'SVC_EMULATOR_WRITE_ENV',
    // Not --env-file: Node 20 takes that flag for itself even after the script's name.
    help: 'once ready, write SVC_EMULATOR_URL, _KEY and _WORKSPACE_ID to this file, as exec gives them (removed on a clean stop)',
    schema: text,
  },
  seed: {
    arg: '<n>',
    env: 'SVC_EMULATOR_SEED',
    help: 'deterministic ids, keys and clock',
    // Leading zeros do not make another seed: `--seed 01` is `--seed 1` (D-1096).
    schema: v.pipe(
      v.string(),
      v.regex(/^\d{1,15}$/, 'a whole number (up to 15 digits)'),
      v.transform((digits: string) => seedText(digits)),
    ),
  },
  'admin-token': { arg: '<t>', env: 'SVC_EMULATOR_ADMIN_TOKEN', help: '/_emulator and the console routes need it as a Bearer token', schema: AdminTokenSchema },
  'allowed-host': {
    arg: '<h>',
    env: 'SVC_EMULATOR_ALLOWED_HOSTS',
    help: 'a Host /_emulator and the console routes answer on besides localhost and IP addresses; repeat or comma-separate; .example.test: that name and those under it; all: no Host check',
    multiple: true,
    schema: ALLOWED_HOSTS,
    default: [] as AllowedHosts,
  },
  'live-fetch': { env: 'SVC_EMULATOR_LIVE_FETCH', help: 'fetch URL sources from the network', shows: 'off', default: false },
  log: {
    arg: 'requests',
    env: 'SVC_EMULATOR_LOG',
    help: 'one line per request on stderr (none: off)',
    shows: 'none',
    schema: v.picklist(['requests', 'none'], '"requests" or "none"'),
    default: 'none',
  },
  'outlive-parent': { env: 'SVC_EMULATOR_OUTLIVE_PARENT', help: 'keep running when the process that started the emulator exits', shows: 'off', default: false },
  'embeddings-url': {
    arg: '<u>',
    env: 'SVC_EMULATOR_EMBEDDINGS_URL',
    help: 'an OpenAI-compatible API root whose /embeddings embeds knowledge and questions (a local model server)',
    shows: 'the built-in offline embedder',
    schema: HTTP_URL,
  },
  'embeddings-model': { arg: '<m>', env: 'SVC_EMULATOR_EMBEDDINGS_MODEL', help: 'the model it names (required with it)', schema: text },
  'embeddings-key': { arg: '<k>', env: 'SVC_EMULATOR_EMBEDDINGS_KEY', help: 'sent as a Bearer token', schema: text },
  'embeddings-dimensions': {
    arg: '<n>',
    env: 'SVC_EMULATOR_EMBEDDINGS_DIMENSIONS',
    help: "the vectors' length, when the model can shorten them",
    schema: integer('a positive integer', 1, 99_999),
  },
  help: { short: 'h', help: 'this help' },
  version: { short: 'v', help: 'the version' },
} as const satisfies Record<string, FlagSpec>;

export type FlagName = keyof typeof FLAGS;

type Camel<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;
// biome-ignore lint/suspicious/noExplicitAny: any flag's schema, whatever input it takes
type ValueOf<F> = F extends { schema: infer S extends v.GenericSchema<any, unknown> } ? v.InferOutput<S> : boolean;
type Given<F> = F extends { default: unknown } ? ValueOf<F> : ValueOf<F> | undefined;

/** The options the flags give, by the flag's name in camel case (`--export-on-exit`: `exportOnExit`). */
export type FlagValues = { -readonly [K in Exclude<FlagName, 'help' | 'version'> as Camel<K>]: Given<(typeof FLAGS)[K]> };

export const camel = (name: string) => name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
