import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../emulator/package-info.js';

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
 * banner after it) is printed. `node` holds flags for node itself (`--expose-gc`).
 */
export function startCli(args: string[], options: { env?: Record<string, string>; node?: string[]; track?: Set<ChildProcess> } = {}): Promise<RunningCli> {
  const child = spawn(process.execPath, [...(options.node ?? []), CLI, '--port', '0', ...args], {
    env: { ...process.env, ...options.env },
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

/** Resolves with the exit code once the process has ended (at once if it already has). */
export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}
