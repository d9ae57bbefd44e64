import { performance } from 'node:perf_hooks';
import { createEmulator } from '../../emulator/emulator.js';
import { iso } from '../../src/platform/time.js';
import { fmt, median, readySourceRow } from '../support.js';

/** Items in the listed workspace (`BENCH_LISTS_SIZES`, comma-separated). */
const SIZES = (process.env.BENCH_LISTS_SIZES ?? '2000,20000').split(',').map(Number);
const LIMIT = 100;
const INSERT_BATCH = 500;
/** Pages timed at each end of a walk. */
const EDGE = 10;

/**
 * A walk through a long list (`GET /v1/knowledge/sources`, 100 at a time, every cursor
 * followed) as a client reading a whole workspace does, through `emulator.fetch`. The
 * workspace's sources are written straight into the store (ingesting them would measure
 * ingestion), all with one `created_at`, as a seeded emulator's frozen clock leaves them.
 * The baseline is the same walk's first pages: the last pages should cost what they do
 * (D-1208); a cursor that has the store read every item before it costs more the deeper it is.
 */
export async function run(): Promise<void> {
  for (const size of SIZES) {
    const emulator = await createEmulator({ seed: 1, log: () => {} });
    try {
      const { workspaceId, apiKey } = await emulator.createWorkspace();
      // Hundreds of requests a second: past the default rate limit and daily cap.
      await emulator.updateWorkspace(workspaceId, { rateLimit: { limit: 1_000_000, windowSeconds: 60 }, dailyActivityCap: null });
      const db = emulator.service.db;
      const now = iso(emulator.clock.now());
      for (let start = 0; start < size; start += INSERT_BATCH) {
        const rows = [];
        for (let i = start; i < Math.min(size, start + INSERT_BATCH); i++) {
          rows.push(
            readySourceRow({
              id: `src_list${String(i).padStart(8, '0')}`,
              workspace_id: workspaceId,
              title: `Document ${i}`,
              file_name: `document-${i}.md`,
              byte_size: 1000,
              token_count: 200,
              summary: 'A document of the list benchmark.',
              created_at: now,
            }),
          );
        }
        await db.insertInto('knowledge_sources').values(rows).execute();
      }
      const headers = { authorization: `Bearer ${apiKey.secret}` };
      const walk = async (): Promise<number[]> => {
        const times: number[] = [];
        let after: string | null = null;
        let seen = 0;
        do {
          const t = performance.now();
          const res = await emulator.request(`/v1/knowledge/sources?limit=${LIMIT}${after ? `&after=${encodeURIComponent(after)}` : ''}`, { headers });
          if (res.status !== 200) throw new Error(`the list answered ${res.status}: ${await res.text()}`);
          const page = (await res.json()) as { data: unknown[]; nextCursor: string | null };
          times.push(performance.now() - t);
          seen += page.data.length;
          after = page.nextCursor;
        } while (after);
        if (seen !== size) throw new Error(`the walk saw ${seen} of ${size} sources`);
        return times;
      };
      await walk(); // warm: the statements compiled, the code optimised
      const rounds: number[][] = [];
      for (let r = 0; r < 3; r++) rounds.push(await walk());
      const pages = rounds[0]!.length;
      const at = (from: number, to: number) => median(rounds.flatMap((times) => times.slice(from, to)));
      const first = at(1, 1 + EDGE);
      const last = at(pages - EDGE, pages);
      const whole = median(rounds.map((times) => times.reduce((a, b) => a + b, 0)));
      console.log(
        `  ${size} sources, ${pages} pages of ${LIMIT}: a page near the start ${fmt(first, 2)} ms, near the end ${fmt(last, 2)} ms ` +
          `(${fmt(last / first, 2)}x; goal about 1x), the whole walk ${fmt(whole, 0)} ms (${fmt(whole / (pages * first), 2)}x its pages at the start's cost)`,
      );
    } finally {
      await emulator.close();
    }
  }
}
