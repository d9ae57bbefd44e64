import { performance } from 'node:perf_hooks';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import { fmt, median } from '../support.js';

const BUSY_DOCS = Number(process.env.BENCH_TURNS_DOCS ?? 150);
const ROUNDS = Number(process.env.BENCH_INGEST_ROUNDS ?? 3);

const PARAGRAPH =
  'The administrator configures the network interfaces, the package sources and the backup schedule, then checks the logs for anything unusual. ';

/** A workspace of the emulator with a key, and its adds and reads. */
async function tenant(emulator: Emulator) {
  const ws = await emulator.createWorkspace();
  await emulator.updateWorkspace(ws.workspaceId, { rateLimit: { limit: 1_000_000, windowSeconds: 60 } });
  const headers = { authorization: `Bearer ${ws.apiKey.secret}`, 'content-type': 'application/json' };
  return {
    async add(title: string, text: string): Promise<string> {
      const res = await emulator.request('/v1/knowledge/text', { method: 'POST', headers, body: JSON.stringify({ title, text }) });
      if (res.status !== 202) throw new Error(`add: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    },
    async ready(id: string): Promise<void> {
      for (;;) {
        const res = await emulator.request(`/v1/knowledge/sources/${id}`, { headers });
        if (((await res.json()) as { status: string }).status !== 'pending') return;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  };
}

/** Milliseconds from a lone upload to its `ready`, in process; with `busy`, after another workspace's `busy` uploads. */
async function loneUpload(busy: number): Promise<number> {
  const emulator = await createEmulator({ fixtures: 'none', log: () => {} });
  try {
    const [other, lone] = [await tenant(emulator), await tenant(emulator)];
    // The threads warm before the clock starts, as in a test file's second test.
    await lone.ready(await lone.add('Warm', '# Warm\n\nA first document.'));
    for (let i = 0; i < busy; i++) await other.add(`Manual ${i}`, `# Manual ${i}\n\n${PARAGRAPH.repeat(60)} part ${i}`);
    const t0 = performance.now();
    await lone.ready(await lone.add('Tomatoes', '# Tomatoes\n\nWater them in the morning, twice a week in summer.'));
    return performance.now() - t0;
  } finally {
    await emulator.close();
  }
}

/**
 * Isolation of workspaces in one process (`BENCH_INGEST_ONLY=turns`, D-1118): one
 * document's accept-to-ready time right after another workspace uploaded
 * `BENCH_TURNS_DOCS` (150) documents, against the same document in an idle emulator,
 * medians of `BENCH_INGEST_ROUNDS` fresh emulators, alternated.
 */
export async function runTurns(): Promise<void> {
  const alone: number[] = [];
  const behind: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    alone.push(await loneUpload(0));
    behind.push(await loneUpload(BUSY_DOCS));
  }
  const a = median(alone);
  const b = median(behind);
  console.log(`workspaces in turns: one upload to ready, in process, medians of ${ROUNDS}`);
  console.log(`    alone                        ${fmt(a, 1)} ms  (runs ${alone.map((x) => fmt(x, 0)).join(', ')})`);
  console.log(`    after another's ${BUSY_DOCS} uploads     ${fmt(b, 1)} ms  (${fmt(b / a, 1)}x alone; runs ${behind.map((x) => fmt(x, 0)).join(', ')})`);
}
