import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '../../emulator/package-info.js';
import { cliStore } from './store.js';

export { freePort } from './ports.js';

/** The built CLI (`npm run build`; `npm test` builds first). */
export const CLI = join(packageRoot(), 'dist', 'cli.js');

export interface RunningCli {
  child: ChildProcess;
  url: string;
  /** Everything printed on stdout so far. */
  stdout(): string;
}

/**
 * Starts the built CLI on a free port and resolves once the ready line (and the
 * banner after it) is printed. `node` holds flags for node itself (`--expose-gc`); `cli`
 * runs another copy of the built CLI.
 */
export function startCli(
  args: string[],
  options: { env?: Record<string, string>; node?: string[]; track?: Set<ChildProcess>; cli?: string; store?: 'memory' } = {},
): Promise<RunningCli> {
  const child = spawn(process.execPath, [...(options.node ?? []), options.cli ?? CLI, '--port', '0', ...args], {
    // `store: 'memory'`: a test of what only SQLite in memory has names it (the prebuilt demo, D-186).
    env: { ...process.env, ...(options.store === 'memory' ? options.env : onRunStore(args, options.env)) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  options.track?.add(child);
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /^svc-emulator ready at (http:\/\/\S+)$/m.exec(out);
      if (m && out.includes('OpenAPI:')) resolve({ child, url: m[1]!, stdout: () => out });
    });
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`svc-emulator exited ${code} before ready: ${err}`)));
  });
}

/**
 * The environment of a CLI a test starts: on the run's store (`SVC_EMULATOR_DB`, see
 * `store.ts`) unless the test names one (`--db`, or `SVC_EMULATOR_DB` in `env`).
 */
function onRunStore(args: string[], env: Record<string, string> = {}): Record<string, string> {
  if (args.includes('--db') || env.SVC_EMULATOR_DB !== undefined) return env;
  const db = cliStore();
  return db === undefined ? env : { ...env, SVC_EMULATOR_DB: db };
}

/** Resolves with the exit code once the process has ended (at once if it already has). */
export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (the built CLI when `command` is omitted) and collects both outputs. */
export function runToEnd(
  args: string[],
  options: { command?: string; env?: Record<string, string>; cwd?: string; track?: Set<ChildProcess> } = {},
): Promise<CliRun> {
  const child = spawn(options.command ?? process.execPath, options.command ? args : [CLI, ...args], {
    env: { ...process.env, ...(options.command || args[0] !== 'exec' ? options.env : onRunStore(args, options.env)) },
    cwd: options.cwd ?? packageRoot(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  options.track?.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/** Whether something accepts connections on the port of `url`. */
export function listening(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Resolves with the milliseconds it took for the port of `url` to close; rejects after `withinMs`. */
export async function closesWithin(url: string, withinMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    if (!(await listening(url))) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} still accepts connections after ${withinMs} ms`);
}
