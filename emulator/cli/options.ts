import { parseArgs } from 'node:util';
import { parseAllowedHosts, type AllowedHosts } from '../control-plane-guard.js';

export const HELP = `Usage: svc-emulator [options]
       svc-emulator exec [options] -- <command> [args...]

exec starts the emulator (on a free port unless --port is given), runs the command
with SVC_EMULATOR_URL, and SVC_EMULATOR_KEY and SVC_EMULATOR_WORKSPACE_ID when the
fixtures give a key, in its environment, stops, and exits with the command's status.

Options (each also as an environment variable):
  --port <n>            port to listen on, 0 picks a free one   SVC_EMULATOR_PORT    (4010)
  --host <addr>         address to bind                         SVC_EMULATOR_HOST    (127.0.0.1)
  --db <file|url>       SQLite file; state survives restarts;   SVC_EMULATOR_DB      (in memory)
                        or postgres://user:pass@host:port/db,
                        which several emulators may share
  --lease <ms>          with a shared database: how long a      SVC_EMULATOR_LEASE_MS (15000)
                        killed emulator's jobs wait before
                        another takes them over
  --fixtures <f|none>   fixture file, or none for an empty one  SVC_EMULATOR_FIXTURES (bundled demo)
  --import <file>       start from a state file instead of      SVC_EMULATOR_IMPORT
                        the fixtures
  --export-on-exit <f>  write the state to this file on a       SVC_EMULATOR_EXPORT_ON_EXIT
                        clean stop
  --seed <n>            deterministic ids, keys and clock       SVC_EMULATOR_SEED
  --admin-token <t>     guard /_emulator and console routes     SVC_EMULATOR_ADMIN_TOKEN
  --allowed-host <h>    a Host /_emulator and console routes    SVC_EMULATOR_ALLOWED_HOSTS
                        answer on besides localhost and IP
                        addresses; repeat or comma-separate;
                        .example.test: that name and those under
                        it; all: no Host check
  --live-fetch          fetch URL sources from the network      SVC_EMULATOR_LIVE_FETCH
  --log requests        one line per request on stderr          SVC_EMULATOR_LOG
  --outlive-parent      keep running when the process that      SVC_EMULATOR_OUTLIVE_PARENT
                        started the emulator exits
  --embeddings-url <u>  an OpenAI-compatible API root whose     SVC_EMULATOR_EMBEDDINGS_URL
                        /embeddings embeds knowledge and
                        questions (a local model server);
                        default: the built-in offline embedder
  --embeddings-model <m> the model it names (required with it)  SVC_EMULATOR_EMBEDDINGS_MODEL
  --embeddings-key <k>  sent as a Bearer token                  SVC_EMULATOR_EMBEDDINGS_KEY
  --embeddings-dimensions <n> the vectors' length, when the     SVC_EMULATOR_EMBEDDINGS_DIMENSIONS
                        model can shorten them
  -h, --help            this help
  -v, --version         the version
`;

/** A usage mistake: the CLI prints it with the help and exits 2. */
export class UsageError extends Error {}

export interface CliOptions {
  port: number;
  host: string;
  db: string | undefined;
  fixtures: string;
  import: string | undefined;
  exportOnExit: string | undefined;
  seed: string | undefined;
  adminToken: string | undefined;
  allowedHosts: AllowedHosts;
  liveFetch: boolean;
  logRequests: boolean;
  outliveParent: boolean;
  leaseMs: number | undefined;
  /** An OpenAI-compatible `/embeddings` endpoint instead of the built-in embedder. */
  embeddings: { baseUrl: string; model: string; apiKey?: string; dimensions?: number } | undefined;
}

export type Cli =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'start'; options: CliOptions }
  | { kind: 'exec'; options: CliOptions; command: string; args: string[] };

const FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  db: { type: 'string' },
  fixtures: { type: 'string' },
  import: { type: 'string' },
  'export-on-exit': { type: 'string' },
  seed: { type: 'string' },
  'admin-token': { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'live-fetch': { type: 'boolean' },
  log: { type: 'string' },
  'outlive-parent': { type: 'boolean' },
  lease: { type: 'string' },
  'embeddings-url': { type: 'string' },
  'embeddings-model': { type: 'string' },
  'embeddings-key': { type: 'string' },
  'embeddings-dimensions': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** An on/off environment variable: anything but unset, empty, `0` and `false` is on. */
const envFlag = (value: string | undefined) => value !== undefined && value !== '' && value !== '0' && value !== 'false';

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
  let values: ReturnType<typeof parseArgs<{ args: string[]; options: typeof FLAGS; strict: true; allowPositionals: false }>>['values'];
  try {
    ({ values } = parseArgs({ args: flags, options: FLAGS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  // exec passes the address on, so a free port is the safe default there.
  const port = values.port ?? env.SVC_EMULATOR_PORT ?? (exec ? '0' : '4010');
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, got "${port}"`);
  let allowedHosts: AllowedHosts;
  try {
    allowedHosts = parseAllowedHosts(values['allowed-host'] ?? (env.SVC_EMULATOR_ALLOWED_HOSTS ? [env.SVC_EMULATOR_ALLOWED_HOSTS] : []));
  } catch (error) {
    throw new UsageError(`--allowed-host: ${(error as Error).message}`);
  }
  const log = values.log ?? env.SVC_EMULATOR_LOG ?? '';
  if (log !== '' && log !== 'requests' && log !== 'none') throw new UsageError(`--log takes "requests" (or "none"), got "${log}"`);
  const nonEmpty = (value: string | undefined) => (value === '' ? undefined : value);
  const lease = nonEmpty(values.lease ?? env.SVC_EMULATOR_LEASE_MS);
  if (lease !== undefined && (!/^\d{1,9}$/.test(lease) || Number(lease) < 300)) throw new UsageError(`--lease takes milliseconds, at least 300, got "${lease}"`);
  const embeddings = embeddingsOptions(
    nonEmpty(values['embeddings-url'] ?? env.SVC_EMULATOR_EMBEDDINGS_URL),
    nonEmpty(values['embeddings-model'] ?? env.SVC_EMULATOR_EMBEDDINGS_MODEL),
    nonEmpty(values['embeddings-key'] ?? env.SVC_EMULATOR_EMBEDDINGS_KEY),
    nonEmpty(values['embeddings-dimensions'] ?? env.SVC_EMULATOR_EMBEDDINGS_DIMENSIONS),
  );

  const options: CliOptions = {
    port: Number(port),
    host: values.host ?? env.SVC_EMULATOR_HOST ?? '127.0.0.1',
    db: nonEmpty(values.db ?? env.SVC_EMULATOR_DB),
    fixtures: values.fixtures ?? env.SVC_EMULATOR_FIXTURES ?? 'demo',
    import: nonEmpty(values.import ?? env.SVC_EMULATOR_IMPORT),
    exportOnExit: nonEmpty(values['export-on-exit'] ?? env.SVC_EMULATOR_EXPORT_ON_EXIT),
    seed: nonEmpty(values.seed ?? env.SVC_EMULATOR_SEED),
    adminToken: nonEmpty(values['admin-token'] ?? env.SVC_EMULATOR_ADMIN_TOKEN),
    allowedHosts,
    liveFetch: values['live-fetch'] ?? envFlag(env.SVC_EMULATOR_LIVE_FETCH),
    logRequests: log === 'requests',
    outliveParent: values['outlive-parent'] ?? envFlag(env.SVC_EMULATOR_OUTLIVE_PARENT),
    leaseMs: lease === undefined ? undefined : Number(lease),
    embeddings,
  };
  return exec ? { kind: 'exec', options, command: command[0]!, args: command.slice(1) } : { kind: 'start', options };
}

function embeddingsOptions(url: string | undefined, model: string | undefined, apiKey: string | undefined, dimensions: string | undefined): CliOptions['embeddings'] {
  if (url === undefined) {
    if (model !== undefined || apiKey !== undefined || dimensions !== undefined) throw new UsageError('--embeddings-model, --embeddings-key and --embeddings-dimensions need --embeddings-url');
    return undefined;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--embeddings-url must be an http(s) URL, got "${url}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`--embeddings-url must be an http(s) URL, got "${url}"`);
  if (model === undefined) throw new UsageError('--embeddings-url needs --embeddings-model');
  if (dimensions !== undefined && (!/^\d{1,5}$/.test(dimensions) || Number(dimensions) < 1)) throw new UsageError(`--embeddings-dimensions must be a positive integer, got "${dimensions}"`);
  return { baseUrl: url, model, ...(apiKey !== undefined && { apiKey }), ...(dimensions !== undefined && { dimensions: Number(dimensions) }) };
}
