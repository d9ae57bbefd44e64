import { packageVersion } from '../package-info.js';
import { launcherGoneAtStart, watchLauncher } from './launcher-watch.js';
import { HELP, parseCli, UsageError, type Cli } from './options.js';
import { fail, StopRequests } from './stops.js';

/**
 * The CLI: `svc-emulator [options]` serves until SIGINT, SIGTERM or SIGHUP, or until the
 * process that started it is gone; `svc-emulator exec [options] -- <command>` serves
 * while the command runs. Either way a stop is clean: servers closed, the state written
 * when `--export-on-exit` asks, the store closed intact. This module is small: the
 * command line is read, and a launcher already gone is seen, before the emulator's code
 * is loaded (`serve.ts`).
 */
export async function main(argv: string[], startedBy: number = process.ppid): Promise<void> {
  // A reader that died with our launcher must not turn a clean stop into a crash.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  let cli: Cli;
  try {
    cli = parseCli(argv, process.env);
  } catch (error) {
    // One line naming the flag and the value, nothing started (D-743).
    if (error instanceof UsageError) fail(error.message, 1);
    throw error;
  }
  if (cli.kind === 'help') return void process.stdout.write(HELP);
  if (cli.kind === 'version') return void process.stdout.write(`${packageVersion()}\n`);
  const { options } = cli;
  // Started by a launcher that is already gone (`sh -c 'svc-emulator &'`): nobody would stop us (D-742).
  if (!options.outliveParent && launcherGoneAtStart(startedBy)) {
    fail(`not starting: the process that started it exited before it was up (its parent is now pid ${startedBy}); --outlive-parent keeps it running`, 0);
  }
  const stops = new StopRequests();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => stops.request(signal, signal));
  // Watched from the start: a launcher gone while we load is a stop asked for.
  if (!options.outliveParent) stops.watch = watchLauncher(startedBy, (why) => stops.request(`stopping: ${why}`));
  const { serve } = await import('./serve.js');
  await serve(cli, stops);
}
