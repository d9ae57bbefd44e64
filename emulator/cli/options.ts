import { parseArgs } from 'node:util';
import * as v from 'valibot';
import { camel, FLAGS, type FlagName, type FlagSpec, type FlagValues } from './flags.js';

const PREAMBLE = `Usage: svc-emulator [options]
       svc-emulator exec [options] -- <command> [args...]

exec starts the emulator (on a free port unless --port is given), runs the command
with SVC_EMULATOR_URL, and SVC_EMULATOR_KEY and SVC_EMULATOR_WORKSPACE_ID when the
fixtures give a key, in its environment (removing them otherwise), stops, and exits
with the command's status.

Options (each also as the environment variable shown; a flag wins, an empty variable
counts as unset):
`;

const COLUMN = 28;
const WIDTH = 88;

/** Words of `text` in lines of at most `width` characters. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return line ? [...lines, line] : lines;
}

/** `--help`, written from `FLAGS`. */
function usage(): string {
  const out = [PREAMBLE];
  for (const [name, flag] of Object.entries(FLAGS) as [FlagName, FlagSpec][]) {
    const head = `  ${flag.short ? `-${flag.short}, ` : ''}--${name}${flag.arg ? ` ${flag.arg}` : ''}`;
    const notes = [flag.env, flag.shows && `default ${flag.shows}`].filter(Boolean).join('; ');
    const body = [...wrap(flag.help, WIDTH - COLUMN), ...(notes ? wrap(`(${notes})`, WIDTH - COLUMN) : [])];
    const first = head.length < COLUMN - 1 ? `${head.padEnd(COLUMN)}${body.shift()}` : head;
    out.push(`${first}\n`, ...body.map((line) => `${' '.repeat(COLUMN)}${line}\n`));
  }
  return out.join('');
}

export const HELP = usage();

/** A command line that cannot run: the CLI prints its one line and exits 1, having started nothing. */
export class UsageError extends Error {}

export interface CliOptions extends FlagValues {
  /** An OpenAI-compatible `/embeddings` endpoint instead of the built-in embedder (the four `--embeddings-*` flags). */
  embeddings: { baseUrl: string; model: string; apiKey?: string; dimensions?: number } | undefined;
}

export type Cli =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'start'; options: CliOptions }
  | { kind: 'exec'; options: CliOptions; command: string; args: string[] };

const PARSE_ARGS = Object.fromEntries(
  (Object.entries(FLAGS) as [FlagName, FlagSpec][]).map(([name, flag]) => [
    name,
    { type: flag.arg ? 'string' : 'boolean', ...(flag.multiple && { multiple: true }), ...(flag.short && { short: flag.short }) },
  ]),
) as Record<FlagName, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>;

/** An on/off environment variable: anything but unset, empty, `0` and `false` is on. */
const envFlag = (value: string) => value !== '0' && value !== 'false';

/** A value as a refusal quotes it: a URL's password is not repeated. */
function quoted(raw: string | string[]): string {
  const text = Array.isArray(raw) ? raw.join(',') : raw;
  return JSON.stringify(text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@]*):[^/@]*@/i, '$1:***@'));
}

/** `parseArgs`' refusals, as one line that names the flag. */
function argsProblem(error: unknown): string {
  const { code, message } = error as { code?: string; message: string };
  const named = /'([^']+)'/.exec(message)?.[1]?.replace(/ <value>$/, '') ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown flag ${named} (svc-emulator --help lists them)`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    if (message.includes('does not take')) return `${named} takes no value`;
    // `--lease -5`: parseArgs reads -5 as a flag; say how to give such a value instead.
    return message.includes('ambiguous') ? `${named} needs a value (a value that starts with - is written ${named}=-...)` : `${named} needs a value`;
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
    return `unexpected argument ${JSON.stringify(named)} (flags start with --; exec takes its command after --)`;
  return message;
}

/** One flag's value: the flag's, else its variable's, else its default; checked by its schema (D-743). */
function flagValue(
  name: FlagName,
  flag: FlagSpec,
  given: string | boolean | string[] | undefined,
  env: NodeJS.ProcessEnv,
  exec: boolean,
): { value: unknown; source: string } {
  let raw = given;
  let source = `--${name}`;
  const fromEnv = flag.env === undefined ? undefined : env[flag.env];
  if (raw === undefined && fromEnv !== undefined && fromEnv !== '') {
    source = flag.env!;
    raw = flag.arg === undefined ? envFlag(fromEnv) : flag.multiple ? [fromEnv] : fromEnv;
  }
  if (raw === undefined) return { value: exec && 'execDefault' in flag ? flag.execDefault : flag.default, source };
  if (typeof raw === 'boolean' || !flag.schema) return { value: raw, source };
  const result = v.safeParse(flag.schema as v.GenericSchema<unknown>, raw);
  if (!result.success) throw new UsageError(`${source} takes ${result.issues[0].message}, got ${quoted(raw)}`);
  return { value: result.output, source };
}

/** Reads the command line and the `SVC_EMULATOR_*` variables; flags win over variables. */
export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv): Cli {
  const exec = argv[0] === 'exec';
  let flags = exec ? argv.slice(1) : [...argv];
  let command: string[] = [];
  if (exec) {
    const dashes = flags.indexOf('--');
    if (dashes === -1 || dashes === flags.length - 1) throw new UsageError('exec needs a command after --: svc-emulator exec [options] -- <command> [args...]');
    command = flags.slice(dashes + 1);
    flags = flags.slice(0, dashes);
  }
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    values = parseArgs({ args: flags, options: PARSE_ARGS, strict: true, allowPositionals: false }).values as typeof values;
  } catch (error) {
    throw new UsageError(argsProblem(error));
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  const given: Record<string, unknown> = {};
  // Where each value came from (the flag, else its variable), so a message names what the user set (D-1177).
  const sources: Record<string, string> = {};
  for (const [name, flag] of Object.entries(FLAGS) as [FlagName, FlagSpec][]) {
    if (name === 'help' || name === 'version') continue;
    const { value, source } = flagValue(name, flag, values[name], env, exec);
    given[camel(name)] = value;
    sources[camel(name)] = source;
  }
  const flagged = given as unknown as FlagValues;
  const options: CliOptions = { ...flagged, embeddings: embeddingsOptions(flagged, sources) };
  return exec ? { kind: 'exec', options, command: command[0]!, args: command.slice(1) } : { kind: 'start', options };
}

function embeddingsOptions(values: FlagValues, sources: Record<string, string>): CliOptions['embeddings'] {
  const { embeddingsUrl: url, embeddingsModel: model, embeddingsKey: apiKey, embeddingsDimensions: dimensions } = values;
  if (url === undefined) {
    const set = (['embeddingsModel', 'embeddingsKey', 'embeddingsDimensions'] as const)
      .filter((name) => values[name] !== undefined)
      .map((name) => sources[name]!);
    if (set.length) throw new UsageError(`${set.join(' and ')} ${set.length === 1 ? 'needs' : 'need'} --embeddings-url (or SVC_EMULATOR_EMBEDDINGS_URL)`);
    return undefined;
  }
  if (model === undefined) throw new UsageError(`${sources.embeddingsUrl} needs --embeddings-model (or SVC_EMULATOR_EMBEDDINGS_MODEL)`);
  return { baseUrl: url, model, ...(apiKey !== undefined && { apiKey }), ...(dimensions !== undefined && { dimensions }) };
}
