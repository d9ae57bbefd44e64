import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { openStore, type DatabaseOptions } from '../../src/db/database.js';
import type { JobTable } from '../../src/db/schema/core.js';
import { type JobClaims, LocalClaims } from '../../src/jobs/claims.js';
import { LeasedClaims } from '../../src/jobs/leased-claims.js';
import { SharedProcess } from '../../src/platform/shared-process.js';
import { postgresInstalled, startCluster, type PgCluster } from '../../test/support/postgres.js';
import { fmt, median } from '../support.js';

const NOW = '2026-01-01T00:00:00.000Z';
/** Jobs queued (`BENCH_INGEST_QUEUED`, comma-separated); the first size is the baseline. */
const SIZES = (process.env.BENCH_INGEST_QUEUED ?? '100,1000,5000,20000').split(',').map(Number);
const CLAIMS = 30;
/** What one claim takes: an ingestion batch (`INGEST_BATCH`). */
const BATCH = 16;

const LATER = '2026-01-02T00:00:00.000Z';

/**
 * `n` due jobs, one in ten of a second workspace (the turns of D-1118 have work to do),
 * and as many again due only tomorrow, spread over 100 other workspaces (re-crawls).
 */
function queued(n: number): JobTable[] {
  const job = (i: number, workspace: string, runAt: string): JobTable => ({
    id: `job_${String(i).padStart(8, '0')}`,
    workspace_id: workspace,
    kind: 'ingest',
    payload: '{}',
    status: 'queued',
    run_at: runAt,
    attempts: 0,
    last_error: null,
    created_at: NOW,
    updated_at: NOW,
  });
  return [
    ...Array.from({ length: n }, (_, i) => job(i, i % 10 === 0 ? 'ws_b' : 'ws_a', NOW)),
    ...Array.from({ length: n }, (_, i) => job(n + i, `ws_later${String(i % 100).padStart(3, '0')}`, LATER)),
  ];
}

/**
 * One claim of 16 jobs (as the queue makes one whenever a slot frees) with more and more
 * jobs queued, against the claim with the fewest queued: in a memory store
 * (`LocalClaims`), then in a database of a PostgreSQL server shared by processes
 * (`LeasedClaims`, when the server is installed). A claim should cost about the same
 * however long the queue is (D-1209, D-1211); one that reads the whole queue makes a
 * burst of n uploads cost n² on the serving thread.
 */
export async function runClaims(): Promise<void> {
  await runClaimsOn('memory store, LocalClaims', () => ({ kind: 'memory' }));
  if (!postgresInstalled()) {
    console.log('  shared PostgreSQL store skipped: apt-get install -y postgresql');
    return;
  }
  const cluster = await startCluster();
  try {
    await runClaimsOn('shared PostgreSQL store, LeasedClaims', (size) => ({ kind: 'postgres', url: cluster.createDatabase(`claims_${size}`) }), cluster);
  } finally {
    cluster.destroy();
  }
}

async function runClaimsOn(name: string, options: (size: number) => DatabaseOptions, cluster?: PgCluster): Promise<void> {
  console.log(`job claims, ${name}:`);
  let baseline: number | undefined;
  for (const size of SIZES) {
    const store = await openStore(options(size));
    const process = cluster ? new SharedProcess(store.db, 'ins_bench', { leaseMs: 60_000, now: () => Date.now(), log: () => {} }) : undefined;
    try {
      await process?.start();
      const jobs = queued(size);
      for (let i = 0; i < jobs.length; i += 500)
        await store.db
          .insertInto('jobs')
          .values(jobs.slice(i, i + 500))
          .execute();
      // The statistics autovacuum keeps: a planner that thinks the table empty picks other indexes.
      if (cluster) await sql`ANALYZE jobs`.execute(store.db);
      const claims: JobClaims = process ? new LeasedClaims(store.db, process) : new LocalClaims(store.db);
      const times: number[] = [];
      for (let k = 0; k < CLAIMS; k++) {
        const t = performance.now();
        const got = await claims.claim(NOW, BATCH, new Set(), ['ws_a', 'ws_b']);
        times.push(performance.now() - t);
        // Each batch ends before the next claim, as in a queue with one slot: a job still
        // leased but not held would be claimed again, and held ones deepen LocalClaims' read.
        await claims.finish(got.map((job) => job.id));
        if (got.length < BATCH) break;
      }
      const ms = median(times);
      baseline ??= ms;
      console.log(
        `  ${size} jobs due (and ${size} later): a claim of ${BATCH} ${fmt(ms, 2)} ms (median of ${times.length}; ${fmt(ms / baseline, 2)}x the claim with ${SIZES[0]} due)`,
      );
    } finally {
      await process?.stop();
      await store.close();
    }
  }
}
