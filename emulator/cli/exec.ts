import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import type { ShownKey } from './banner.js';

/** The exit status a shell would report for a process that ended this way. */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null): number {
  if (signal) return 128 + (constants.signals[signal] ?? 0);
  return code ?? 1;
}

/** The variables that say which emulator a command talks to: `exec` sets them, `--write-env` writes them. */
export const EMULATOR_VARIABLES = ['SVC_EMULATOR_URL', 'SVC_EMULATOR_KEY', 'SVC_EMULATOR_WORKSPACE_ID'] as const;
export type EmulatorVariables = Record<(typeof EMULATOR_VARIABLES)[number], string | undefined>;

/** Where the emulator is, and a key and its workspace when the fixtures gave one (unset otherwise). */
export function emulatorVariables(url: string, key: ShownKey | undefined): EmulatorVariables {
  return { SVC_EMULATOR_URL: url, SVC_EMULATOR_KEY: key?.secret, SVC_EMULATOR_WORKSPACE_ID: key?.workspaceId };
}

/**
 * The environment of `exec`'s command: ours, with every emulator variable set to this
 * emulator's or removed, so nothing from an outer `exec` or a CI job's settings is left
 * beside the new URL (decisions, D-741).
 */
export function commandEnvironment(outer: NodeJS.ProcessEnv, variables: EmulatorVariables): NodeJS.ProcessEnv {
  const env = { ...outer };
  for (const name of EMULATOR_VARIABLES) {
    const value = variables[name];
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/**
 * The same variables as a file (`--write-env`): `NAME=value` lines that `set -a; .
 * ./file` and dotenv readers take, and a CI runner's `$GITHUB_ENV` too. Unset ones are
 * written empty, so sourcing the file also clears an outer key.
 */
export function envFileText(variables: EmulatorVariables): string {
  return EMULATOR_VARIABLES.map((name) => `${name}=${variables[name] ?? ''}\n`).join('');
}

export interface RunningCommand {
  /** Passes a stop on: the signal first, SIGKILL the second time. */
  interrupt(signal: NodeJS.Signals): void;
}

/**
 * Runs `command` (no shell: the arguments arrive as given) with our stdio, in `env`. `done` gets the exit status once: the command's own, 128+n
 * for a death by signal n, 127 when the command does not exist and 126 when it cannot
 * be run, with `problem` saying so in one line.
 */
export function runCommand(command: string, args: string[], env: NodeJS.ProcessEnv, done: (status: number, problem?: string) => void): RunningCommand {
  let finished = false;
  let interrupted = 0;
  const finish = (status: number, problem?: string) => {
    if (finished) return;
    finished = true;
    done(status, problem);
  };
  const child: ChildProcess = spawn(command, args, { stdio: 'inherit', env });
  child.once('error', (error: NodeJS.ErrnoException) => {
    // Only a failure to start reaches here before an exit; later errors (a failed kill) do not matter.
    if (child.pid !== undefined) return;
    if (error.code === 'ENOENT') finish(127, `exec: command not found: ${command}`);
    else if (error.code === 'EACCES') finish(126, `exec: permission denied: ${command}`);
    else finish(126, `exec: cannot run ${command}: ${error.message}`);
  });
  child.once('exit', (code, signal) => finish(exitStatus(code, signal)));
  return {
    interrupt(signal) {
      if (finished || child.exitCode !== null || child.signalCode !== null) return;
      child.kill(interrupted++ === 0 ? signal : 'SIGKILL');
    },
  };
}
