#!/usr/bin/env node
import { main } from './cli/main.js';

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`svc-emulator: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
