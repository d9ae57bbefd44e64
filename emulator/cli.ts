#!/usr/bin/env node
import { tierUpLater } from './cli/tiering.js';

// Before any other module loads, so that the whole process tiers as D-1070 says.
tierUpLater();
// Our parent, read before the CLI's modules load: a launcher that exits at once
// (`sh -c 'svc-emulator & echo $!'`) may be gone by the time the rest has loaded (D-742).
const startedBy = process.ppid;
const { main } = await import('./cli/main.js');

main(process.argv.slice(2), startedBy).catch((error: unknown) => {
  process.stderr.write(`svc-emulator: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
