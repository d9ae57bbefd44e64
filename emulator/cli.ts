#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { createEmulator, type Emulator } from './emulator.js';
import { parseAllowedHosts, type AllowedHosts } from './control-plane-guard.js';
import { FixtureError } from './fixtures.js';
import { packageVersion } from './package-info.js';

const HELP = `Usage: svc-emulator [options]

Options (each also as an environment variable):
  --port <n>            port to listen on, 0 picks a free one   SVC_EMULATOR_PORT    (4010)
  --host <addr>         address to bind                         SVC_EMULATOR_HOST    (127.0.0.1)
  --db <file>           SQLite file; state survives restarts    SVC_EMULATOR_DB      (in memory)
  --fixtures <f|none>   fixture file, or none for an empty one  SVC_EMULATOR_FIXTURES (bundled demo)
  --seed <n>            deterministic ids, keys and clock       SVC_EMULATOR_SEED
  --admin-token <t>     guard /_emulator and console routes     SVC_EMULATOR_ADMIN_TOKEN
  --allowed-host <h>    a Host /_emulator and console routes    SVC_EMULATOR_ALLOWED_HOSTS
                        answer on besides localhost and IP
                        addresses; repeat or comma-separate;
                        .example.test: that name and those under
                        it; all: no Host check
  --live-fetch          fetch URL sources from the network      SVC_EMULATOR_LIVE_FETCH
  -h, --help            this help
  -v, --version         the version
`;

function fail(message: string, code = 2): never {
  process.stderr.write(`svc-emulator: ${message}\n`);
  process.exit(code);
}

function parse() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        db: { type: 'string' },
        fixtures: { type: 'string' },
        seed: { type: 'string' },
        'admin-token': { type: 'string' },
        'allowed-host': { type: 'string', multiple: true },
        'live-fetch': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    fail(`${(error as Error).message}\n\n${HELP}`);
  }
  if (values.help) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  if (values.version) {
    process.stdout.write(`${packageVersion()}\n`);
    process.exit(0);
  }
  const env = process.env;
  const port = values.port ?? env.SVC_EMULATOR_PORT ?? '4010';
  if (!/^\d+$/.test(port) || Number(port) > 65535) fail(`--port must be an integer from 0 to 65535, got "${port}"`);
  const liveFetchEnv = env.SVC_EMULATOR_LIVE_FETCH;
  let allowedHosts: AllowedHosts;
  try {
    allowedHosts = parseAllowedHosts(values['allowed-host'] ?? (env.SVC_EMULATOR_ALLOWED_HOSTS ? [env.SVC_EMULATOR_ALLOWED_HOSTS] : []));
  } catch (error) {
    fail(`--allowed-host: ${(error as Error).message}`);
  }
  return {
    port: Number(port),
    host: values.host ?? env.SVC_EMULATOR_HOST ?? '127.0.0.1',
    db: values.db ?? env.SVC_EMULATOR_DB,
    fixtures: values.fixtures ?? env.SVC_EMULATOR_FIXTURES ?? 'demo',
    seed: values.seed ?? env.SVC_EMULATOR_SEED,
    adminToken: values['admin-token'] ?? env.SVC_EMULATOR_ADMIN_TOKEN,
    allowedHosts,
    liveFetch: values['live-fetch'] ?? (liveFetchEnv !== undefined && liveFetchEnv !== '' && liveFetchEnv !== '0' && liveFetchEnv !== 'false'),
  };
}

async function main(): Promise<void> {
  const args = parse();
  let emulator: Emulator;
  try {
    emulator = await createEmulator({
      ...(args.db !== undefined && { db: args.db }),
      ...(args.seed !== undefined && { seed: args.seed }),
      ...(args.adminToken !== undefined && { adminToken: args.adminToken }),
      allowedHosts: args.allowedHosts,
      fixtures: args.fixtures,
      liveFetch: args.liveFetch,
    });
  } catch (error) {
    if (error instanceof FixtureError) fail(error.message, 1);
    throw error;
  }
  const server = await emulator.listen({ port: args.port, host: args.host });
  const lines = [`svc-emulator ready at ${server.url}`, `  UI: ${server.url}/_emulator/ui`];
  for (const key of emulator.fixtureKeys) {
    lines.push(`  key ${key.name} (${key.workspace}, ${key.workspaceId}): ${key.secret}`, `      scopes: ${key.scopes.join(' ')}`);
  }
  lines.push(`  OpenAPI: ${server.url}/v1/openapi.json  control plane: ${server.url}/_emulator/health`);
  process.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    emulator
      .close()
      .then(() => process.exit(0))
      .catch((error) => {
        process.stderr.write(`svc-emulator: error while stopping on ${signal}: ${(error as Error).message}\n`);
        process.exit(1);
      });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error) => {
  process.stderr.write(`svc-emulator: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
