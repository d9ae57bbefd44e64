import { existsSync, rmSync } from 'node:fs';
import { isPostgresUrl, StoreOpenError } from '../../src/db/database.js';
import { openAiEmbedder } from '../../src/knowledge/openai-embedder.js';
import { createEmulator, type Emulator, type ListeningServer } from '../emulator.js';
import { FixtureError, readFixture, type Fixture } from '../fixtures.js';
import { packageVersion } from '../package-info.js';
import { bannerLines, keysToShow, stateNotes } from './banner.js';
import { execEnvironment, exitStatus, runCommand, type RunningCommand } from './exec.js';
import { watchLauncher } from './launcher-watch.js';
import { HELP, parseCli, UsageError, type Cli, type CliOptions } from './options.js';
import { checkExportTarget, importFailure, readStateFile, StateFileError, writeStateFile } from './state-file.js';

const say = (line: string) => process.stderr.write(`svc-emulator: ${line}\n`);

function fail(message: string, code: number): never {
  say(message);
  process.exit(code);
}

const quiet = () => {};

/** Why a listen failed, in one line that says what to do. */
function listenProblem(error: NodeJS.ErrnoException, options: CliOptions): string {
  if (error.code === 'EADDRINUSE') return `port ${options.port} is in use on ${options.host}; choose another with --port <n>, or --port 0 for a free one`;
  if (error.code === 'EACCES') return `no permission to listen on port ${options.port}; choose one above 1023 with --port <n>, or --port 0 for a free one`;
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') return `cannot listen on ${options.host}: not an address of this machine (--host)`;
  return `cannot listen on ${options.host}:${options.port}: ${error.message}`;
}

/** Removes a store file this run created, so a failed start leaves nothing behind. */
function removeStore(db: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${db}${suffix}`, { force: true });
}

/**
 * The CLI: `svc-emulator [options]` serves until SIGINT, SIGTERM or SIGHUP, or until the
 * process that started it is gone; `svc-emulator exec [options] -- <command>` serves
 * while the command runs. Either way a stop is clean: servers closed, the state written
 * when `--export-on-exit` asks, the store closed intact.
 */
export async function main(argv: string[]): Promise<void> {
  // A reader that died with our launcher must not turn a clean stop into a crash.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', quiet);
  let cli: Cli;
  try {
    cli = parseCli(argv, process.env);
  } catch (error) {
    if (error instanceof UsageError) fail(`${error.message}\n\n${HELP}`, 2);
    throw error;
  }
  if (cli.kind === 'help') return void process.stdout.write(HELP);
  if (cli.kind === 'version') return void process.stdout.write(`${packageVersion()}\n`);
  const { options } = cli;

  // A stop asked for before the server is up is kept and honoured once it is; a second
  // signal meanwhile ends the start at once.
  let onStop: ((why: string, signal?: NodeJS.Signals) => void) | undefined;
  let pending: { why: string; signal?: NodeJS.Signals } | undefined;
  const requestStop = (why: string, signal?: NodeJS.Signals) => {
    if (!onStop && pending && signal) process.exit(130);
    pending ??= { why, ...(signal && { signal }) };
    onStop?.(why, signal);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => requestStop(signal, signal));

  let state: unknown;
  try {
    if (options.exportOnExit) checkExportTarget(options.exportOnExit);
    if (options.import) {
      state = readStateFile(options.import, { db: options.db, seed: options.seed });
      // Into a store file, try the import in memory first: a bad file must not touch it.
      if (options.db) {
        await createEmulator({ fixtures: 'none', state, log: quiet, ...(options.seed && { seed: options.seed }) })
          .then((trial) => trial.close())
          .catch((error: unknown) => {
            throw importFailure(options.import!, error);
          });
      }
    }
  } catch (error) {
    if (error instanceof StateFileError) fail(error.message, 1);
    throw error;
  }

  // A PostgreSQL URL names a server's database: nothing on disk to check or clean up.
  const dbFile = options.db !== undefined && !isPostgresUrl(options.db) ? options.db : undefined;
  const dbExisted = dbFile !== undefined && existsSync(dbFile);
  const created = () => dbFile !== undefined && !dbExisted;
  let emulator: Emulator;
  try {
    emulator = await createEmulator({
      ...(options.db !== undefined && { db: options.db }),
      ...(options.seed !== undefined && { seed: options.seed }),
      ...(options.adminToken !== undefined && { adminToken: options.adminToken }),
      ...(state !== undefined && { state }),
      allowedHosts: options.allowedHosts,
      fixtures: options.fixtures,
      liveFetch: options.liveFetch,
      ...(options.leaseMs !== undefined && { leaseMs: options.leaseMs }),
      ...(options.embeddings && { embedder: openAiEmbedder(options.embeddings) }),
    });
  } catch (error) {
    if (created()) removeStore(dbFile!);
    if (error instanceof StoreOpenError) fail(error.message, 1);
    if (error instanceof FixtureError) fail(error.message, 1);
    if (options.import) fail(importFailure(options.import, error).message, 1);
    throw error;
  }

  let server: ListeningServer;
  try {
    server = await emulator.listen({ port: options.port, host: options.host, ...(options.logRequests && { log: (line: string) => process.stderr.write(`${line}\n`) }) });
  } catch (error) {
    await emulator.close();
    if (created()) removeStore(dbFile!);
    fail(listenProblem(error as NodeJS.ErrnoException, options), 1);
  }

  const fixture: Fixture | undefined = options.fixtures === 'none' ? undefined : readFixture(options.fixtures);
  const keys = await keysToShow(emulator, fixture);
  const notes = stateNotes(emulator, fixture, { ...(options.import && { imported: options.import }), ...(dbExisted && { restarted: options.db! }) });

  let stopping = false;
  const watch = options.outliveParent ? undefined : watchLauncher((why) => requestStop(`stopping: ${why}`));
  const shutdown = async (status: number, message?: string) => {
    if (stopping) return;
    stopping = true;
    watch?.stop();
    if (message) say(message);
    await server.close();
    let code = status;
    if (options.exportOnExit) {
      try {
        await writeStateFile(emulator, options.exportOnExit);
        say(`state written to ${options.exportOnExit}`);
      } catch (error) {
        say(`could not write the state to ${options.exportOnExit}: ${(error as Error).message}`);
        code ||= 1;
      }
    }
    await emulator.close();
    process.exit(code);
  };

  if (cli.kind === 'start') {
    process.stdout.write(`${bannerLines(server.url, keys, notes).join('\n')}\n`);
    onStop = (why, signal) => {
      // A second signal while stopping: the user insists.
      if (stopping && signal) process.exit(130);
      void shutdown(0, signal ? undefined : why);
    };
  } else {
    const key = keys[0];
    say(`ready at ${server.url}; running ${cli.command} with SVC_EMULATOR_URL${key ? ` and SVC_EMULATOR_KEY (${key.name} of ${key.workspace})` : ''}`);
    if (pending) return void shutdown(exitStatus(null, pending.signal ?? 'SIGTERM'), pending.signal ? undefined : pending.why);
    const command: RunningCommand = runCommand(cli.command, cli.args, execEnvironment(server.url, key), (status, problem) => void shutdown(status, problem));
    onStop = (why, signal) => {
      if (signal) return command.interrupt(signal);
      // Our launcher is gone and nobody will send a second signal: insist after a while.
      say(why);
      command.interrupt('SIGTERM');
      setTimeout(() => command.interrupt('SIGKILL'), 1500).unref();
    };
  }
  if (pending) onStop(pending.why, pending.signal);
}
