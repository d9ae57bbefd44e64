import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { crawl } from '../../src/knowledge/fetch/crawl.js';
import { OfflineWeb, WebDefinitionSchema } from '../../src/knowledge/fetch/offline-web.js';
import { IngestError } from '../../src/knowledge/pipeline/ingest-error.js';

const MiB = 1024 * 1024;
const web = (input: unknown) => new OfflineWeb(v.parse(WebDefinitionSchema, input));
const html = (text: string) => ({ headers: { 'Content-Type': 'text/html' }, body: `<p>${text}</p>` });
const redirect = (url: string, location: string, status = 301) => ({ url, status, headers: { location } });

async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IngestError);
  return (error as IngestError).code;
}

describe('crawling the offline web', () => {
  it('fetches a registered page: body, content type, and the URL it ended on', async () => {
    const w = web({ pages: [{ url: 'https://shop.example/faq', ...html('Hello') }] });
    const page = await crawl('https://shop.example/faq#top', w, { timeoutMs: 10_000 });
    expect(page).toEqual({ url: 'https://shop.example/faq', contentType: 'text/html', body: Buffer.from('<p>Hello</p>') });
  });

  it('follows up to five redirects, relative ones included; the sixth fails ingest_failed', async () => {
    const pages = [
      redirect('http://a.example/0', 'https://b.example/1', 301),
      redirect('https://b.example/1', '/2', 302),
      redirect('https://b.example/2', 'https://c.example/3', 303),
      redirect('https://c.example/3', 'https://c.example/4', 307),
      redirect('https://c.example/4', 'https://d.example/5', 308),
      { url: 'https://d.example/5', ...html('done') },
      redirect('https://e.example/0', 'https://e.example/1'),
      ...[1, 2, 3, 4, 5].map((i) => redirect(`https://e.example/${i}`, `https://e.example/${i + 1}`)),
      { url: 'https://e.example/6', ...html('too far') },
    ];
    const w = web({ pages });
    expect((await crawl('http://a.example/0', w, { timeoutMs: 10_000 })).url).toBe('https://d.example/5');
    expect(await failure(crawl('https://e.example/0', w, { timeoutMs: 10_000 }))).toBe('ingest_failed');
  });

  it('judges every redirect hop: a blocked literal address, localhost, or a forbidden scheme or port', async () => {
    const w = web({
      pages: [
        redirect('https://x.example/meta', 'http://169.254.169.254/latest/meta-data'),
        redirect('https://x.example/local', 'http://localhost:8080/admin'),
        redirect('https://x.example/mapped', 'http://[::ffff:10.0.0.1]/'),
        redirect('https://x.example/decimal', 'http://2130706433/'),
        redirect('https://x.example/ftp', 'ftp://x.example/file'),
        redirect('https://x.example/port', 'https://x.example:2375/'),
      ],
    });
    const codes = [];
    for (const path of ['meta', 'local', 'mapped', 'decimal', 'ftp', 'port'])
      codes.push(await failure(crawl(`https://x.example/${path}`, w, { timeoutMs: 10_000 })));
    expect(codes).toEqual([
      'fetch_blocked_address:link_local',
      'fetch_blocked_address:loopback',
      'fetch_blocked_address:private',
      'fetch_blocked_address:loopback',
      'ingest_failed',
      'ingest_failed',
    ]);
  });

  it('judges every resolved address: one blocked address refuses the name; unknown names fail fetch_dns_failed', async () => {
    const w = web({
      pages: [{ url: 'https://public.example/', ...html('ok') }, redirect('https://public.example/hop', 'https://intranet.example/')],
      dns: {
        'intranet.example': ['10.0.0.5'],
        'mixed.example': ['93.184.215.14', '192.168.0.10'],
        'mapped.example': ['::ffff:127.0.0.1'],
        'cgnat.example': ['100.64.1.1'],
        'v6.example': ['fd00::1'],
        'gone.example': [],
      },
    });
    const codes = [];
    for (const url of [
      'https://intranet.example/',
      'https://public.example/hop',
      'https://mixed.example/',
      'https://mapped.example/',
      'https://cgnat.example/',
      'https://v6.example/',
      'https://gone.example/',
      'https://unknown.example/',
    ]) {
      codes.push(await failure(crawl(url, w, { timeoutMs: 10_000 })));
    }
    expect(codes).toEqual([
      'fetch_blocked_address:private',
      'fetch_blocked_address:private',
      'fetch_blocked_address:private',
      'fetch_blocked_address:loopback',
      'fetch_blocked_address:carrier_grade_nat',
      'fetch_blocked_address:unique_local',
      'fetch_dns_failed',
      'fetch_dns_failed',
    ]);
    // Names are matched as URLs spell them: any case, international names in punycode.
    const intl = web({ pages: [], dns: { 'Café.Example.': ['10.9.9.9'] } });
    expect(await failure(crawl('https://CAFÉ.example/menu', intl, { timeoutMs: 10_000 }))).toBe('fetch_blocked_address:private');
    // A dns entry for a page's host decides where it resolves.
    const pinned = web({ pages: [{ url: 'https://shop.example/', ...html('x') }], dns: { 'shop.example': ['127.0.0.1'] } });
    expect(await failure(crawl('https://shop.example/', pinned, { timeoutMs: 10_000 }))).toBe('fetch_blocked_address:loopback');
  });

  it('fails fetch_timeout at once when the delays pass the budget, over all hops', async () => {
    const w = web({
      pages: [
        { url: 'https://slow.example/', delayMs: 10_001, ...html('late') },
        { url: 'https://slow.example/edge', delayMs: 10_000, ...html('in time') },
        { ...redirect('https://slow.example/hop', 'https://slow.example/rest'), delayMs: 6_000 },
        { url: 'https://slow.example/rest', delayMs: 6_000, ...html('late again') },
      ],
    });
    const started = performance.now();
    expect(await failure(crawl('https://slow.example/', w, { timeoutMs: 10_000 }))).toBe('fetch_timeout');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect((await crawl('https://slow.example/edge', w, { timeoutMs: 10_000 })).url).toBe('https://slow.example/edge');
    expect(await failure(crawl('https://slow.example/hop', w, { timeoutMs: 10_000 }))).toBe('fetch_timeout');
  });

  it('accepts a 5 MiB body and fails fetch_response_too_large one byte over', async () => {
    const w = web({
      pages: [
        { url: 'https://big.example/ok', headers: { 'content-type': 'text/plain' }, body: 'a'.repeat(5 * MiB) },
        { url: 'https://big.example/over', headers: { 'content-type': 'text/plain' }, body: 'a'.repeat(5 * MiB + 1) },
      ],
    });
    expect((await crawl('https://big.example/ok', w, { timeoutMs: 10_000 })).body.byteLength).toBe(5 * MiB);
    expect(await failure(crawl('https://big.example/over', w, { timeoutMs: 10_000 }))).toBe('fetch_response_too_large');
  });

  it('fails ingest_failed on an HTTP error or a missing page of a known host', async () => {
    const w = web({ pages: [{ url: 'https://err.example/500', status: 500, body: 'boom' }] });
    expect(await failure(crawl('https://err.example/500', w, { timeoutMs: 10_000 }))).toBe('ingest_failed');
    expect(await failure(crawl('https://err.example/missing', w, { timeoutMs: 10_000 }))).toBe('ingest_failed');
  });

  it('refuses a web definition with duplicate pages, bad addresses or bad URLs', () => {
    const bad = [
      { pages: [{ url: 'https://a.example/' }, { url: 'https://a.example/#x' }] },
      { pages: [], dns: { 'a.example': ['not-an-ip'] } },
      { pages: [{ url: 'ftp://a.example/' }] },
      { pages: [{ url: 'https://a.example/', body: 'x', bodyBase64: 'eA==' }] },
      { pages: [{ url: 'https://a.example/', delayMs: -1 }] },
    ];
    for (const input of bad) expect(v.safeParse(WebDefinitionSchema, input).success, JSON.stringify(input)).toBe(false);
  });
});
