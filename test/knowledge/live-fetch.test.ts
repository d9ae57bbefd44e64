import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockedClass } from '../../src/knowledge/fetch/address.js';
import { crawl, type CrawlOptions } from '../../src/knowledge/fetch/crawl.js';
import { LiveWeb } from '../../src/knowledge/fetch/live-fetch.js';
import { judgeUrl } from '../../src/knowledge/fetch/url-policy.js';
import { IngestError } from '../../src/knowledge/pipeline/ingest-error.js';

// The local test server lives on a loopback address and a free port, both refused by
// the real rules: these options admit exactly that one address and any port, and
// judge everything else as in production.
let port = 0;
const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
const server = createServer((req, res) => {
  seen.push({ url: req.url!, headers: req.headers });
  if (req.url === '/page') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<p>Hello from the shop</p>');
  } else if (req.url === '/to-page') {
    res.writeHead(302, { location: `http://shop.test:${port}/page` });
    res.end();
  } else if (req.url === '/to-loopback') {
    res.writeHead(301, { location: `http://127.0.0.2:${port}/page` });
    res.end();
  } else if (req.url === '/to-private-name') {
    res.writeHead(307, { location: `http://intranet.test:${port}/` });
    res.end();
  } else if (req.url === '/slow') {
    setTimeout(() => res.end('late'), 2_000).unref();
  } else if (req.url === '/huge') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const piece = Buffer.alloc(64 * 1024, 97);
    let sent = 0;
    const more = () => {
      while (sent <= 5 * 1024 * 1024) {
        sent += piece.length;
        if (!res.write(piece)) return res.once('drain', more);
      }
      res.end();
    };
    more();
  } else if (req.url === '/declared-huge') {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(6 * 1024 * 1024) });
    res.end();
  } else {
    res.writeHead(404);
    res.end();
  }
});

const names: Record<string, string[]> = { 'shop.test': ['127.0.0.1'], 'intranet.test': ['10.1.2.3'] };
const live = new LiveWeb({ resolve: async (name) => names[name] ?? [] });
const options: CrawlOptions = {
  timeoutMs: 10_000,
  judge: (address) => (address === '127.0.0.1' ? undefined : blockedClass(address)),
  policy: (url) => {
    const portless = new URL(url.href);
    portless.port = '';
    return judgeUrl(portless);
  },
};

async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IngestError);
  return (error as IngestError).code;
}

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('live fetching', () => {
  it('connects only to the address it judged: a name the system cannot resolve still reaches it, with its own Host', async () => {
    const page = await crawl(`http://shop.test:${port}/to-page`, live, options);
    expect(page.url).toBe(`http://shop.test:${port}/page`);
    expect(page.contentType).toBe('text/html; charset=utf-8');
    expect(Buffer.from(page.body).toString()).toBe('<p>Hello from the shop</p>');
    expect(seen.at(-1)!.headers.host).toBe(`shop.test:${port}`);
  });

  it('resolves each name once per hop and never lets the connection resolve it again (no rebinding window)', async () => {
    const flipping = new LiveWeb({
      resolve: async () => {
        flipping.calls += 1;
        return flipping.calls === 1 ? ['127.0.0.1'] : ['10.0.0.1'];
      },
    }) as LiveWeb & { calls: number };
    flipping.calls = 0;
    const page = await crawl(`http://rebind.test:${port}/page`, flipping, options);
    expect(Buffer.from(page.body).toString()).toContain('Hello');
    expect(flipping.calls).toBe(1);
  });

  it('judges every redirect hop again: a loopback literal and a name resolving to a private address', async () => {
    expect(await failure(crawl(`http://shop.test:${port}/to-loopback`, live, options))).toBe('fetch_blocked_address:loopback');
    expect(await failure(crawl(`http://shop.test:${port}/to-private-name`, live, options))).toBe('fetch_blocked_address:private');
    expect(await failure(crawl('http://nowhere.test/', live, options))).toBe('fetch_dns_failed');
  });

  it('gives up after the time budget with fetch_timeout', async () => {
    const started = performance.now();
    expect(await failure(crawl(`http://shop.test:${port}/slow`, live, { ...options, timeoutMs: 300 }))).toBe('fetch_timeout');
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it('stops reading past 5 MiB, declared or streamed, with fetch_response_too_large', async () => {
    expect(await failure(crawl(`http://shop.test:${port}/declared-huge`, live, options))).toBe('fetch_response_too_large');
    expect(await failure(crawl(`http://shop.test:${port}/huge`, live, options))).toBe('fetch_response_too_large');
  });

  it('fails ingest_failed when nothing listens at the judged address', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await failure(crawl(`http://shop.test:${deadPort}/`, live, options))).toBe('ingest_failed');
  });
});
