import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../../emulator/package-info.js';
import { fmt, median } from '../support.js';

const run = promisify(execFile);
const ROOT = packageRoot();
const STARTS = Number(process.env.BENCH_STARTS ?? 10);

// Each script runs in a fresh \`node\` and prints its wall time from the import to the
// answer, and the process's CPU (every thread's), in milliseconds; with \`setup\`, work run
// before the clock starts, both count from its end. \`defs\` only defines (nothing runs).
const TIMED = (body: string, { defs = '', setup = '' } = {}) => `
${defs}
${setup}
const u0 = ${setup ? 'process.cpuUsage()' : 'undefined'};
const t0 = performance.now();
${body}
const u = process.cpuUsage(u0);
console.log(JSON.stringify({ ms: performance.now() - t0, cpu: (u.user + u.system) / 1000 }));
process.exit(0);
`;

/** A bare Hono app answering one request in process: the floor a library start is compared with. */
const BARE = TIMED(`
const { Hono } = await import('hono');
const app = new Hono();
app.get('/v1/me', (c) => c.json({ workspaceId: 'ws_bare' }));
await (await app.request('/v1/me')).json();
`);

/**
 * What the scripts of \`entry\` do, defined before the clock starts (nothing runs): \`start\`
 * imports the entry (once) and creates an emulator and a workspace; \`readOne\` uploads one
 * Markdown document and waits until it is \`ready\`.
 */
const WITH = (entry: string) => `
const start = async () => {
  const { createEmulator } = await import(${JSON.stringify(entry)});
  const emulator = await createEmulator({ fixtures: 'none' });
  const { apiKey } = await emulator.createWorkspace();
  return { emulator, auth: { authorization: 'Bearer ' + apiKey.secret } };
};
const readOne = async ({ emulator, auth }) => {
  const form = new FormData();
  form.set('file', new File(['# Opening hours\\n\\nWe open from 9:00 to 17:00 on weekdays.'], 'hours.md', { type: 'text/markdown' }));
  await emulator.fetch(new Request('http://localhost/v1/knowledge/uploads', { method: 'POST', headers: auth, body: form }));
  await emulator.drain();
};
`;

/** \`entry\` imported, an emulator created, one request answered (a user's test file, up to its first call). */
const EMULATOR = (entry: string) =>
  TIMED(
    `const { emulator, auth } = await start();
await (await emulator.fetch(new Request('http://localhost/v1/me', { headers: auth }))).json();`,
    { defs: WITH(entry) },
  );

/** The same, then one Markdown upload read to \`ready\` (the first one starts the worker threads). */
const FIRST_DOCUMENT = (entry: string) => TIMED('await readOne(await start());', { defs: WITH(entry) });

/** Two emulators, one Markdown upload each read to \`ready\`: the second one's, timed alone (D-1074: on the first one's threads). */
const SECOND_EMULATOR = (entry: string) => TIMED('await readOne(await start());', { defs: WITH(entry), setup: 'await readOne(await start());' });

/**
 * The same after the first emulator closed, as a test that creates its own emulator pays
 * it after the one before it: on the threads the first one left idle (D-1229).
 */
const AFTER_CLOSE = (entry: string) =>
  TIMED('await readOne(await start());', { defs: WITH(entry), setup: 'const first = await start(); await readOne(first); await first.emulator.close();' });

async function once(script: string): Promise<{ ms: number; cpu: number }> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { ms: number; cpu: number };
}

/**
 * An in-process start, as a test file pays it (decisions, D-1072): the package's entry
 * (`exports`, the bundled library) imported, an emulator created and asked once, beside a
 * bare Hono app answering once, and beside the same start from `tsc`'s output
 * (`dist/emulator/main.js`, what the entry was before). Fresh processes, alternated.
 */
export async function libraryStart(): Promise<void> {
  const bundled = join(ROOT, 'dist', 'lib-main.js');
  const compiled = join(ROOT, 'dist', 'emulator', 'main.js');
  if (!existsSync(bundled) || !existsSync(compiled)) {
    console.log('in-process start skipped: dist/ is missing (npm run build)');
    return;
  }
  const cases = {
    bare: BARE,
    entry: EMULATOR(bundled),
    tsc: EMULATOR(compiled),
    entryDocument: FIRST_DOCUMENT(bundled),
    tscDocument: FIRST_DOCUMENT(compiled),
    secondEmulator: SECOND_EMULATOR(bundled),
    afterClose: AFTER_CLOSE(bundled),
  };
  const times = Object.fromEntries(Object.keys(cases).map((k) => [k, [] as { ms: number; cpu: number }[]])) as Record<
    keyof typeof cases,
    { ms: number; cpu: number }[]
  >;
  for (let i = 0; i < STARTS; i++) for (const [name, script] of Object.entries(cases)) times[name as keyof typeof cases].push(await once(script));
  const ms = (k: keyof typeof cases) => median(times[k].map((t) => t.ms));
  const cpu = (k: keyof typeof cases) => median(times[k].map((t) => t.cpu));
  const line = (label: string, k: keyof typeof cases) => console.log(`  ${label.padEnd(40)} ${fmt(ms(k))} ms  CPU ${fmt(cpu(k), 0)} ms`);
  console.log(`in-process start (import, createEmulator, one request), fresh processes, median of ${STARTS}`);
  line('bare Hono app, one app.request', 'bare');
  line("the package's entry (bundled)", 'entry');
  line("tsc's output (dist/emulator/main.js)", 'tsc');
  line('entry, then one document ready', 'entryDocument');
  line("tsc's output, then one document ready", 'tscDocument');
  line("a second emulator's first document", 'secondEmulator');
  line('the same once the first one closed', 'afterClose');
  console.log(
    `  ratio                                    ${fmt(ms('entry') / ms('bare'), 2)}x the bare app (tsc's output: ${fmt(ms('tsc') / ms('bare'), 2)}x)`,
  );
}
