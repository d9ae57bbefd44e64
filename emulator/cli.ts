#!/usr/bin/env node
// Our parent, read before any module loads: a launcher that exits at once
// (`sh -c 'svc-emulator & echo $!'`) may be gone by the time the rest has loaded (D-742).
const startedBy = process.ppid;
const { main } = await import('./cli/main.js');

main(process.argv.slice(2), startedBy).catch((error: unknown) => {
  process.stderr.write(`svc-emulator: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
