import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { IngestError } from '../pipeline/ingest-error.js';
import type { HopResponse, Web } from '../ports.js';

const ACCEPT = 'text/html, application/xhtml+xml, text/markdown, text/plain, text/csv, application/json, application/pdf;q=0.9, */*;q=0.1';

/** Resolves a name to all its addresses; empty when it does not resolve. */
async function systemResolve(name: string): Promise<string[]> {
  try {
    return (await dnsLookup(name, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return [];
  }
}

function isTimeout(error: unknown): boolean {
  const e = error as { name?: string; code?: string; cause?: { name?: string; code?: string } };
  const names = [e?.name, e?.code, e?.cause?.name, e?.cause?.code];
  return names.some(
    (n) => n === 'TimeoutError' || n === 'AbortError' || n === 'UND_ERR_HEADERS_TIMEOUT' || n === 'UND_ERR_BODY_TIMEOUT' || n === 'UND_ERR_CONNECT_TIMEOUT',
  );
}

/**
 * The network, for `--live-fetch`. Each hop gets its own undici Agent whose `lookup`
 * answers only the address the crawler judged, so the connection cannot go anywhere
 * else (no DNS-rebinding window between judging and connecting). Literal-address hosts
 * never reach `lookup`: the crawler judges those itself. `resolve` may be replaced
 * (tests point names at a local server).
 */
export class LiveWeb implements Web {
  constructor(private readonly options: { resolve?: (name: string) => Promise<string[]>; userAgent?: string } = {}) {}

  resolve(name: string): Promise<string[]> {
    return (this.options.resolve ?? systemResolve)(name);
  }

  async get(url: URL, address: string, budgetMs: number, maxBytes: number): Promise<HopResponse> {
    const { Agent, request } = await import('undici');
    const family = isIP(address) === 6 ? 6 : 4;
    const pinned = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      if (options?.all) callback(null, [{ address, family }]);
      else callback(null, address, family);
    }) as unknown as LookupFunction;
    const timeout = Math.max(1, Math.floor(budgetMs));
    const agent = new Agent({ connect: { lookup: pinned, timeout }, headersTimeout: timeout, bodyTimeout: timeout });
    const started = performance.now();
    try {
      const res = await request(url, {
        dispatcher: agent,
        method: 'GET',
        headers: { 'user-agent': this.options.userAgent ?? 'svc-emulator knowledge crawler', accept: ACCEPT },
        signal: AbortSignal.timeout(timeout),
      });
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.headers)) {
        if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      }
      const declared = Number(headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        res.body.destroy();
        throw new IngestError('fetch_response_too_large');
      }
      const parts: Buffer[] = [];
      let size = 0;
      for await (const part of res.body) {
        size += (part as Buffer).byteLength;
        if (size > maxBytes) {
          res.body.destroy();
          throw new IngestError('fetch_response_too_large');
        }
        parts.push(part as Buffer);
      }
      return { status: res.statusCode, headers, body: Buffer.concat(parts), elapsedMs: performance.now() - started };
    } catch (error) {
      if (error instanceof IngestError) throw error;
      if (isTimeout(error)) throw new IngestError('fetch_timeout');
      throw new IngestError('ingest_failed', `fetch failed: ${(error as Error).message}`);
    } finally {
      await agent.destroy().catch(() => {});
    }
  }
}
