import { setTimeout } from 'node:timers';
import { existsSync, rmSync, statSync } from 'node:fs';
import { isPostgresUrl, StoreOpenError } from '../../src/db/database.js';
import { openAiEmbedder } from '../../src/knowledge/openai-embedder.js';
import { createEmulator, type Emulator, type ListeningServer } from '../emulator.js';
import { FixtureError, readFixture, type Fixture } from '../fixtures.js';
import { bannerLines, keysToShow, stateNotes } from './banner.js';
import { commandEnvironment, emulatorVariables, envFileText, exitStatus, runCommand, type RunningCommand } from './exec.js';
import type { Cli, CliOptions } from './options.js';
import { fail, say, type StopRequests } from './stops.js';
import { rehearsalTexts } from './rehearsals.js';
import { removeQuietly, writeFileSafely } from './safe-file.js';
import { checkExportTarget, importFailure, readStateFile, StateFileError, writeStateFile } from './state-file.js';
import { EmulatorOptionsError } from '../options-schema.js';

/**
 * How long the CLI's worker threads live without work (D-1221): a server's threads keep
 * the code they compiled on the pages they read and the documents they memoised, so a
 * burst after a pause (a test suite run again, the first suite a minute after start)
 * finds them warm; the library's 30 s frees an in-process emulator's threads soon after
 * its tests.
 */
const CLI_THREAD_IDLE_MS = 10 * 60_000;

const quiet = () => {};

/** Why a listen failed, in one line that says what to do. */
function listenProblem(error: NodeJS.ErrnoException, options: CliOptions): string {
  if (error.code === 'EADDRINUSE') return `port ${options.port} is in use on ${options.host}; choose another with --port <n>, or --port 0 for a free one`;
  if (error.code === 'EACCES') return `no permission to listen on port ${options.port}; choose one above 1023 with --port <n>, or --port 0 for a free one`;
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') return `cannot listen on ${options.host}: not an address of this machine (--host)`;
  return `cannot listen on ${options.host}:${options.port}: ${error.message}`;
}

/** Why a store could not be opened, when SQLite said it (`--db README.md`: not a database). */
function sqliteProblem(error: unknown, file: string | undefined): string | undefined {
  const code = (error as { code?: unknown }).code;
  if (file === undefined || typeof code !== 'string' || !code.startsWith('SQLITE_')) return undefined;
  return `--db ${file}: cannot use it as a SQLite store: ${(error as Error).message}`;
}

/** Writes `--write-env` and removes it again on a stop, only while it is still the file we wrote. */
function envFile(path: string | undefined) {
  let written: { dev: number; ino: number } | undefined;
  return {
    write(text: string) {
      if (path === undefined) return;
      writeFileSafely(path, text);
      written = statSync(path);
    },
    remove() {
      const now = path === undefined ? undefined : statSync(path, { throwIfNoEntry: false });
      if (written && now && now.dev === written.dev && now.ino === written.ino) removeQuietly(path!);
    },
  };
}

/** Removes a store file this run created, so a failed start leaves nothing behind. */
function removeStore(db: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${db}${suffix}`, { force: true });
}

/**
 * Starts the emulator the options describe and serves until a stop is requested. `main`
 * has read the command line and set up the signals and the launcher watch before this
 * module, and everything it loads, was imported (decisions, D-742).
 */
export async function serve(cli: Extract<Cli, { options: CliOptions }>, stops: StopRequests): Promise<void> {
  const { options } = cli;
  const { watch } = stops;
  let state: unknown;
  try {
    if (options.exportOnExit) checkExportTarget(options.exportOnExit, '--export-on-exit');
    if (options.writeEnv) checkExportTarget(options.writeEnv, '--write-env');
    if (options.import) {
      state = await readStateFile(options.import, { db: options.db, seed: options.seed });
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
      allowedHosts: options.allowedHost,
      fixtures: options.fixtures,
      liveFetch: options.liveFetch,
      ...(options.lease !== undefined && { leaseMs: options.lease }),
      ...(options.embeddings && { embedder: openAiEmbedder(options.embeddings) }),
      workers: { idleTimeoutMs: CLI_THREAD_IDLE_MS },
    });
  } catch (error) {
    if (created()) removeStore(dbFile!);
    if (error instanceof StoreOpenError || error instanceof FixtureError || error instanceof EmulatorOptionsError) fail(error.message, 1);
    const sqlite = sqliteProblem(error, dbFile);
    if (sqlite) fail(sqlite, 1);
    if (options.import) fail(importFailure(options.import, error).message, 1);
    throw error;
  }

  let server: ListeningServer;
  try {
    server = await emulator.listen({
      port: options.port,
      host: options.host,
      ...(options.log === 'requests' && { log: (line: string) => process.stderr.write(`${line}\n`) }),
    });
  } catch (error) {
    await emulator.close();
    if (created()) removeStore(dbFile!);
    fail(listenProblem(error as NodeJS.ErrnoException, options), 1);
  }

  // Listening: start ingestion's threads now, in the background, so that the first
  // uploads do not wait for them (D-1000), and have them rehearse on the package's own
  // pages while no document comes (D-1220); an in-process emulator stays lazy.
  void emulator.service.warmIngestion(rehearsalTexts);

  const fixture: Fixture | undefined = options.fixtures === 'none' ? undefined : readFixture(options.fixtures);
  const keys = await keysToShow(emulator, fixture);
  const notes = stateNotes(emulator, fixture, { ...(options.import && { imported: options.import }), ...(dbExisted && { restarted: options.db! }) });

  // The variables `exec` gives its command, also written to `--write-env` once we answer (D-744).
  const key = keys[0];
  const variables = emulatorVariables(server.url, key);
  const env = envFile(options.writeEnv);
  let stopping = false;
  const shutdown = async (status: number, message?: string) => {
    if (stopping) return;
    stopping = true;
    watch?.stop();
    // First: a script waiting for the file must not find a server that is going.
    env.remove();
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

  try {
    env.write(envFileText(variables));
  } catch (error) {
    await server.close();
    await emulator.close();
    if (created()) removeStore(dbFile!);
    fail(`--write-env ${options.writeEnv}: cannot write it: ${(error as Error).message}`, 1);
  }

  if (cli.kind === 'start') {
    process.stdout.write(`${bannerLines(server.url, keys, notes).join('\n')}\n`);
    stops.handle((why, signal) => {
      // A second signal while stopping: the user insists.
      if (stopping && signal) process.exit(130);
      void shutdown(0, signal ? undefined : why);
    });
  } else {
    say(`ready at ${server.url}; running ${cli.command} with SVC_EMULATOR_URL${key ? ` and SVC_EMULATOR_KEY (${key.name} of ${key.workspace})` : ''}`);
    const pending = stops.pending;
    if (pending) return void shutdown(exitStatus(null, pending.signal ?? 'SIGTERM'), pending.signal ? undefined : pending.why);
    const command: RunningCommand = runCommand(
      cli.command,
      cli.args,
      commandEnvironment(process.env, variables),
      (status, problem) => void shutdown(status, problem),
    );
    stops.handle((why, signal) => {
      if (signal) return command.interrupt(signal);
      // Our launcher is gone and nobody will send a second signal: insist after a while.
      say(why);
      command.interrupt('SIGTERM');
      setTimeout(() => command.interrupt('SIGKILL'), 1500).unref();
    });
  }
}
