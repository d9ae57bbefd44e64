import { performance } from 'node:perf_hooks';
import { percentile } from '../support.js';

const CONNECTIONS = 4;
const PAUSE_MS = 2;

export const LOAD = { connections: CONNECTIONS, pauseMs: PAUSE_MS };

/**
 * A client of another workspace: `CONNECTIONS` loops each sending `GET /v1/me`, then
 * pausing `PAUSE_MS`, until `until` (milliseconds, or a promise) ends, timed to the
 * microsecond (autocannon rounds to whole milliseconds, and saturating the server would
 * measure how the CPU is shared rather than whether anything blocks the request thread).
 */
export async function meLatency(
  url: string,
  key: string,
  until: number | Promise<unknown>,
): Promise<{ p99: number; max: number; rps: number; non2xx: number }> {
  const latencies: number[] = [];
  let non2xx = 0;
  const t0 = performance.now();
  let done = false;
  if (typeof until !== 'number') until.finally(() => (done = true)).catch(() => {});
  const over = () => (typeof until === 'number' ? performance.now() >= t0 + until : done);
  const loop = async () => {
    while (!over()) {
      const t = performance.now();
      const res = await fetch(`${url}/v1/me`, { headers: { authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      latencies.push(performance.now() - t);
      if (res.status !== 200) non2xx += 1;
      await new Promise((r) => setTimeout(r, PAUSE_MS));
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  const seconds = (performance.now() - t0) / 1000;
  return { p99: percentile(latencies, 99), max: Math.max(...latencies), rps: latencies.length / seconds, non2xx };
}
