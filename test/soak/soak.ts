/**
 * Soak (`npm run soak`): a mixed workload on loopback against the built CLI for a
 * bounded time, with a real load generator (autocannon). Prints requests per second,
 * p99 latency, errors (must be 0; the intended 4xx are driven and counted apart) and
 * the server's heap after a full garbage collection at start and end (growth must stay
 * under 20%; RSS is printed too, but it follows the collector, not leaks). Exits 1 when
 * a limit is broken.
 *
 *   SOAK_SECONDS (default 30), SOAK_CONNECTIONS (default 16)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { client as createClient } from '../support/client.js';
import { startCli } from '../support/cli.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 30);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 16);
const MiB = 1024 * 1024;

/** The emulator's heap after a full collection (the CLI runs with --expose-gc here), and its RSS. */
async function memory(url: string): Promise<{ heap: number; rss: number }> {
  const m = (await createClient(url).get('/_emulator/memory')).body as { heapUsed: number; rss: number; collected: boolean };
  if (!m.collected) throw new Error('the emulator did not collect garbage before measuring');
  return { heap: m.heapUsed / MiB, rss: m.rss / MiB };
}

type Req = { method: string; path: string; body?: string; headers?: Record<string, string>; setupRequest?: unknown; onResponse?: unknown };

async function main(): Promise<void> {
  const db = join(mkdtempSync(join(tmpdir(), 'svc-soak-')), 'soak.db');
  const { child, url } = await startCli(['--db', db, '--fixtures', 'none'], { node: ['--expose-gc'] });
  const control = createClient(url);
  const ws = (await control.post('/_emulator/workspaces', { name: 'soak' })).body;
  await control.patch(`/_emulator/workspaces/${ws.workspaceId}`, { rateLimit: { limit: 100_000_000 } });
  const api = createClient(url, ws.apiKey.secret);
  const auth = { authorization: `Bearer ${ws.apiKey.secret}`, 'content-type': 'application/json' };
  const agent = (await api.post('/v1/agents', { name: 'Soak', identity: { businessName: 'Soak' } })).body;
  // Routes of parts that answer here join the mix; the rest is left out.
  const available = async (path: string, init: RequestInit = {}) => (await fetch(`${url}${path}`, { ...init, headers: auth })).status < 300;

  const ok: Req[] = [
    { method: 'GET', path: '/v1/me' },
    { method: 'GET', path: '/v1/agents?limit=20' },
    { method: 'GET', path: `/v1/agents/${agent.id}` },
    // Create then delete, so that state stays bounded and memory growth means a leak.
    {
      method: 'POST', path: '/v1/agents', body: JSON.stringify({ name: 'Tmp', identity: { businessName: 'T' } }),
      onResponse: (_status: number, body: string, context: Record<string, string>) => { context.agent = JSON.parse(body).id; },
    },
    { method: 'DELETE', path: '/v1/agents/x', setupRequest: (req: Req, context: Record<string, string>) => ({ ...req, path: `/v1/agents/${context.agent}` }) },
  ];
  if (await available('/v1/knowledge/sources')) ok.push({ method: 'GET', path: '/v1/knowledge/sources?limit=10' });
  if (await available('/v1/projects')) ok.push({ method: 'GET', path: '/v1/projects' });
  if (await available(`/v1/agents/${agent.id}/query`, { method: 'POST', body: JSON.stringify({ query: 'opening hours' }) })) {
    ok.push({ method: 'POST', path: `/v1/agents/${agent.id}/query`, body: JSON.stringify({ query: 'opening hours' }) });
  }
  const refused: Req[] = [
    { method: 'GET', path: '/v1/agents/agt_missing' },
    { method: 'POST', path: '/v1/agents', body: JSON.stringify({ name: '' }) },
    { method: 'GET', path: '/v1/agents?limit=0' },
    { method: 'GET', path: '/v1/nowhere' },
  ];

  const warm = await autocannon({ url, connections: CONNECTIONS, duration: Math.min(5, SECONDS), headers: auth, requests: ok as never });
  void warm;
  const start = await memory(url);
  const [good, bad] = await Promise.all([
    autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers: auth, requests: ok as never }),
    autocannon({ url, connections: 2, duration: SECONDS, headers: auth, requests: refused as never }),
  ]);
  const end = await memory(url);
  child.kill('SIGTERM');

  const growth = (end.heap - start.heap) / start.heap;
  const wrongRefusals = bad.requests.total - bad.non2xx; // every refused request must be non-2xx
  console.log(`soak: ${SECONDS}s, ${ok.length} request kinds on ${CONNECTIONS} connections, ${refused.length} refused kinds on 2`);
  console.log(`  throughput   ${Math.round(good.requests.average)} req/s (${good.requests.total} requests)`);
  console.log(`  latency      p50 ${good.latency.p50} ms, p99 ${good.latency.p99} ms`);
  console.log(`  errors       ${good.errors} transport, ${good.non2xx} non-2xx in the mix (must be 0)`);
  console.log(`  refusals     ${bad.requests.total} intended 4xx, ${wrongRefusals} answered otherwise (must be 0), ${bad.errors} transport errors`);
  console.log(`  memory       heap after GC ${start.heap.toFixed(1)} MiB at start, ${end.heap.toFixed(1)} MiB at end, growth ${(growth * 100).toFixed(1)}% (must be < 20%); RSS ${start.rss.toFixed(0)} -> ${end.rss.toFixed(0)} MiB`);
  const failed = good.errors > 0 || good.non2xx > 0 || wrongRefusals > 0 || bad.errors > 0 || growth >= 0.2;
  if (failed) process.exit(1);
}

await main();
