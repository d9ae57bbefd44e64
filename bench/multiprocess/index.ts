import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import pg from 'pg';
import { packageRoot } from '../../emulator/package-info.js';
import { startCluster } from '../../test/support/postgres.js';
import { fmt, median, startServer, stop } from '../support.js';

const CLI = join(packageRoot(), 'dist', 'cli.js');
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = 24;
const PROBES = Number(process.env.BENCH_PROBES ?? 500);

interface Figures {
  rps: number;
  p99: number;
  non2xx: number;
}

/** Load spread over every process at once (the connections split evenly); throughputs add up. */
async function load(urls: string[], key: string, write: boolean): Promise<Figures> {
  const one = (url: string, duration: number) =>
    autocannon({
      url: `${url}${write ? '/v1/agents' : '/v1/me'}`,
      method: write ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(write && { body: JSON.stringify({ name: 'Bench', identity: { businessName: 'Bench' } }) }),
      connections: Math.max(1, Math.floor(CONNECTIONS / urls.length)),
      duration,
    });
  await Promise.all(urls.map((u) => one(u, 1)));
  const results = await Promise.all(urls.map((u) => one(u, DURATION)));
  return {
    rps: results.reduce((a, r) => a + r.requests.average, 0),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    non2xx: results.reduce((a, r) => a + r.non2xx, 0),
  };
}

/** A workspace whose key the rate limiter never refuses (the bench measures the stack). */
async function benchKey(url: string): Promise<string> {
  const ws = (await (await fetch(`${url}/_emulator/workspaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as {
    workspaceId: string;
    apiKey: { secret: string };
  };
  await fetch(`${url}/_emulator/workspaces/${ws.workspaceId}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rateLimit: { limit: 1e9 } }),
  });
  return ws.apiKey.secret;
}

/**
 * What coherence costs: the version read every request makes against a shared store,
 * and what LISTEN/NOTIFY would cost instead (no read per request, but a change is seen
 * only once its notification arrives: the delay from a commit to its delivery).
 */
async function coherenceCosts(url: string): Promise<{ read: number; notify: number }> {
  const a = new pg.Client({ connectionString: url });
  const b = new pg.Client({ connectionString: url });
  await a.connect();
  await b.connect();
  const reads: number[] = [];
  for (let i = 0; i < PROBES; i++) {
    const t0 = performance.now();
    await a.query({ name: 'version', text: 'SELECT version FROM coherence WHERE id = 1' });
    reads.push(performance.now() - t0);
  }
  await b.query('LISTEN bench_coherence');
  const delays: number[] = [];
  for (let i = 0; i < Math.min(PROBES, 200); i++) {
    const heard = new Promise<number>((resolve) => b.once('notification', () => resolve(performance.now())));
    const t0 = performance.now();
    await a.query("SELECT pg_notify('bench_coherence', 'x')");
    delays.push((await heard) - t0);
  }
  await a.end();
  await b.end();
  return { read: median(reads), notify: median(delays) };
}

/**
 * `GET /v1/me` and `POST /v1/agents` on one SQLite process, one PostgreSQL process and
 * three PostgreSQL processes sharing one database, in one run, as ratios of the SQLite
 * figure. No target: on a 2-core machine three processes and the server share the cores.
 */
export async function run(): Promise<void> {
  const cluster = await startCluster();
  const dir = mkdtempSync(join(tmpdir(), 'svc-emu-bench-'));
  try {
    const setups: [string, string[][]][] = [
      ['SQLite file, 1 process', [['--db', join(dir, 'bench.db')]]],
      ['PostgreSQL, 1 process', [['--db', cluster.createDatabase('bench_one')]]],
      ['PostgreSQL, 3 processes', [0, 1, 2].map(() => ['--db', cluster.url('bench_three')])],
    ];
    cluster.createDatabase('bench_three');
    const rows: { name: string; read: Figures; write: Figures }[] = [];
    for (const [name, argsList] of setups) {
      // One after another: processes sharing a database start together anyway; this keeps the start quiet.
      const servers = [];
      for (const args of argsList) servers.push(await startServer([CLI, '--port', '0', '--fixtures', 'none', ...args]));
      const key = await benchKey(servers[0]!.url);
      const urls = servers.map((s) => s.url);
      const read = await load(urls, key, false);
      const write = await load(urls, key, true);
      rows.push({ name, read, write });
      for (const s of servers) await stop(s.child);
    }
    const costs = await coherenceCosts(cluster.url('bench_three'));

    const base = rows[0]!;
    console.log(`${DURATION}s each, ${CONNECTIONS} connections split over the processes; ratios against one SQLite process`);
    for (const r of rows) {
      console.log(
        `  ${r.name.padEnd(24)} GET /v1/me ${fmt(r.read.rps, 0).padStart(6)} req/s (${fmt(r.read.rps / base.read.rps, 2)}x, p99 ${r.read.p99} ms, non-2xx ${r.read.non2xx})` +
          `   POST /v1/agents ${fmt(r.write.rps, 0).padStart(6)} req/s (${fmt(r.write.rps / base.write.rps, 2)}x, p99 ${r.write.p99} ms, non-2xx ${r.write.non2xx})`,
      );
    }
    console.log(
      `coherence on PostgreSQL, median of ${PROBES}: version read per request ${fmt(costs.read, 3)} ms; NOTIFY delivered after ${fmt(costs.notify, 3)} ms`,
    );
  } finally {
    cluster.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}
