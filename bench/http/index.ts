import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { packageRoot } from '../../emulator/package-info.js';
import { fmt, median, startServer, stop } from '../support.js';
import { libraryStart } from './library-start.js';

const CLI = join(packageRoot(), 'dist', 'cli.js');
const BARE = join(packageRoot(), 'bench', 'http', 'bare-server.mjs');
const DEMO_KEY = 'svc_test_DemoFullAccessKey000000000000001_0k1rIW';
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const STARTS = Number(process.env.BENCH_STARTS ?? 10);

/**
 * CPU time (user + system, ms) a process has used so far, from /proc on Linux: on a busy
 * machine the wall time to the ready line mostly measures waiting for a core, CPU does not.
 */
function cpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

interface Load {
  rps: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
  /** The server's CPU per request answered (µs, /proc), when it can be read. */
  cpuUs: number | undefined;
}

async function load(url: string, headers: Record<string, string>, pid: number | undefined, path = '/v1/me'): Promise<Load> {
  // Warm up the JIT and the store before measuring.
  await autocannon({ url: `${url}${path}`, headers, connections: 20, duration: 1 });
  const before = cpuMs(pid);
  const r = await autocannon({ url: `${url}${path}`, headers, connections: 20, duration: DURATION });
  const after = cpuMs(pid);
  const cpuUs = before !== undefined && after !== undefined && r.requests.total > 0 ? ((after - before) * 1000) / r.requests.total : undefined;
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx, total: r.requests.total, cpuUs };
}

/** The median of the rounds' CPU per request, when every round could read it. */
function cpuPerRequest(rounds: Load[]): number | undefined {
  const values = rounds.map((r) => r.cpuUs);
  return values.every((v) => v !== undefined) ? median(values as number[]) : undefined;
}

/**
 * Throughput of an authenticated `GET /v1/me` through the whole stack against a bare
 * Hono app on the same server, and time to the ready line against the bare server.
 */
export async function run(): Promise<void> {
  const emu = await startServer([CLI, '--port', '0', '--seed', '1']);
  const wsId = ((await (await fetch(`${emu.url}/v1/me`, { headers: { authorization: `Bearer ${DEMO_KEY}` } })).json()) as { workspaceId: string }).workspaceId;
  // The benchmark measures the stack, not the rate limiter refusing it.
  await fetch(`${emu.url}/_emulator/workspaces/${wsId}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rateLimit: { limit: 1e9 } }),
  });
  const bareServer = await startServer([BARE]);
  // Alternate rounds so that both see the same machine; compare medians.
  const full: Load[] = [];
  const bare: Load[] = [];
  const problem: Load[] = [];
  const auth = { authorization: `Bearer ${DEMO_KEY}` };
  for (let round = 0; round < ROUNDS; round++) {
    full.push(await load(emu.url, auth, emu.child.pid));
    bare.push(await load(bareServer.url, {}, bareServer.child.pid));
    // An error answered (a problem document, the journal's code): what a suite's negative tests cost.
    problem.push(await load(emu.url, auth, emu.child.pid, '/v1/agents/agt_missing'));
  }
  await stop(emu.child);
  await stop(bareServer.child);
  const fullRps = median(full.map((r) => r.rps));
  const bareRps = median(bare.map((r) => r.rps));

  console.log(`GET /v1/me, ${ROUNDS} alternating rounds of ${DURATION}s, 20 connections (median)`);
  console.log(
    `  full stack  ${fmt(fullRps, 0)} req/s  p99 ${median(full.map((r) => r.p99))} ms  errors ${full.reduce((a, r) => a + r.errors, 0)}  non-2xx ${full.reduce((a, r) => a + r.non2xx, 0)}`,
  );
  console.log(`  bare Hono   ${fmt(bareRps, 0)} req/s  p99 ${median(bare.map((r) => r.p99))} ms`);
  console.log(`  ratio       ${fmt(fullRps / bareRps, 2)} of bare throughput (target >= 0.60)`);
  const fullCpu = cpuPerRequest(full);
  const bareCpu = cpuPerRequest(bare);
  if (fullCpu !== undefined && bareCpu !== undefined) {
    // On a busy machine the client's share of the cores moves throughput; the server's own CPU per answer much less.
    console.log(`  CPU per request (/proc): full stack ${fmt(fullCpu, 0)} µs, bare Hono ${fmt(bareCpu, 0)} µs: ${fmt(bareCpu / fullCpu, 2)} of bare`);
  }
  const problemCpu = cpuPerRequest(problem);
  console.log(
    `  a 404 (GET /v1/agents/agt_missing, a problem document): ${fmt(median(problem.map((r) => r.rps)), 0)} req/s, ${fmt(median(problem.map((r) => r.rps)) / fullRps, 2)} of GET /v1/me` +
      (problemCpu !== undefined ? `, ${fmt(problemCpu, 0)} µs CPU per request` : '') +
      (problem.every((r) => r.non2xx === r.total) ? '' : ' (SOME ANSWERED 2xx)'),
  );

  const timings = { emulator: [] as number[], demo: [] as number[], bare: [] as number[] };
  const cpu = { emulator: [] as number[], demo: [] as number[], bare: [] as number[] };
  for (let i = 0; i < STARTS; i++) {
    for (const [name, args] of [
      ['emulator', [CLI, '--port', '0', '--fixtures', 'none']],
      ['demo', [CLI, '--port', '0']],
      ['bare', [BARE]],
    ] as const) {
      const s = await startServer([...args]);
      timings[name].push(s.ms);
      const used = cpuMs(s.child.pid);
      if (used !== undefined) cpu[name].push(used);
      await stop(s.child);
    }
  }
  const e = median(timings.emulator);
  const d = median(timings.demo);
  const b = median(timings.bare);
  console.log(`start to ready line, median of ${STARTS}`);
  console.log(`  emulator (--fixtures none)  ${fmt(e)} ms`);
  console.log(`  emulator (demo fixtures)    ${fmt(d)} ms`);
  console.log(`  bare Hono server            ${fmt(b)} ms`);
  console.log(`  ratio (--fixtures none)     ${fmt(e / b, 2)}x the bare server (target <= 2.00)`);
  const prebuilt = existsSync(join(packageRoot(), 'dist', 'demo-state.json'))
    ? 'started from dist/demo-state.json'
    : 'dist/demo-state.json missing: loaded; run npm run build';
  console.log(`  ratio (demo fixtures)       ${fmt(d / b, 2)}x the bare server (target <= 2.00; ${prebuilt})`);
  if (cpu.bare.length === STARTS) {
    // CPU time to the ready line (clock ticks of 10 ms): the same ratios, robust to a busy machine.
    const [ce, cd, cb] = [median(cpu.emulator), median(cpu.demo), median(cpu.bare)];
    console.log(`CPU time to ready line, median of ${STARTS} (/proc; ${fmt(ce, 0)} / ${fmt(cd, 0)} / ${fmt(cb, 0)} ms)`);
    console.log(`  ratio (--fixtures none)     ${fmt(ce / cb, 2)}x the bare server`);
    console.log(`  ratio (demo fixtures)       ${fmt(cd / cb, 2)}x the bare server`);
  }
  await libraryStart();
}
