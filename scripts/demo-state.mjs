// Writes dist/demo-state.json, the bundled demo loaded once (decisions, D-185, D-186).
// Run by `npm run build` after tsc, with the code tsc just wrote to dist/ (the code that
// ships; no TypeScript loader in the main thread or the workers). Before writing, it
// starts the demo from the new state and from a fresh load with two seeds at two
// instants and fails the build on any difference, so a file that could answer otherwise
// than a load is never shipped.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { buildDemoState, checkDemoState, DEMO_CHECKS } from '../dist/emulator/prebuilt/build-demo-state.js';
import { prebuiltPath } from '../dist/emulator/prebuilt/demo-state.js';

const path = prebuiltPath();
// A failed build must not leave the previous file beside new code.
rmSync(path, { force: true });
const prebuilt = await buildDemoState();
for (const check of DEMO_CHECKS) await checkDemoState(prebuilt, check);
mkdirSync(dirname(path), { recursive: true });
writeFileSync(`${path}.tmp`, `${JSON.stringify(prebuilt)}\n`);
renameSync(`${path}.tmp`, path);
const rows = Object.values(prebuilt.state.tables).reduce((n, t) => n + t.length, 0);
process.stdout.write(`demo state: ${rows} rows, ${prebuilt.calls.length} id calls, checked against ${DEMO_CHECKS.length} fresh loads -> ${path}\n`);
