import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import type { ShownKey } from './banner.js';

/** The exit status a shell would report for a process that ended this way. */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null): number {
  if (signal) return 128 + (constants.signals[signal] ?? 0);
  return code ?? 1;
}

/** The variables `exec` gives its command: where the emulator is, and a key when the fixtures gave one. */
export function execEnvironment(url: string, key: ShownKey | undefined): Record<string, string> {
  return {
    SVC_EMULATOR_URL: url,
    ...(key && { SVC_EMULATOR_KEY: key.secret, SVC_EMULATOR_WORKSPACE_ID: key.workspaceId }),
  };
}

export interface RunningCommand {
  /** Passes a stop on: the signal first, SIGKILL the second time. */
  interrupt(signal: NodeJS.Signals): void;
}

/**
 * Runs `command` (no shell: the arguments arrive as given) with our stdio and `env`
 * added to our environment. `done` gets the exit status once: the command's own, 128+n
 * for a death by signal n, 127 when the command does not exist and 126 when it cannot
 * be run, with `problem` saying so in one line.
 */
export function runCommand(command: string, args: string[], env: Record<string, string>, done: (status: number, problem?: string) => void): RunningCommand {
  let finished = false;
  let interrupted = 0;
  const finish = (status: number, problem?: string) => {
    if (finished) return;
    finished = true;
    done(status, problem);
  };
  const child: ChildProcess = spawn(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
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
