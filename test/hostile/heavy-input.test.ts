import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/emulator.js';
import { MAX_PDF_PAGES, MAX_TEXT_CHARS } from '../../src/knowledge/pipeline/ingest-error.js';
import { fixture } from '../assets/support.js';
import { exited, startCli } from '../support/cli.js';
import { send, type Client } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { deflatedRun, fontBombPdf, textPdf } from '../support/pdf.js';
import { html, upload } from '../knowledge/support.js';

// Heavy and hostile input runs in worker threads under limits (issue 11): what a
// client sees when something goes over them, and that nothing else goes wrong.

const emulator = await fileEmulator({ seed: 111 });
// The same service with tight limits, so that going over them is quick to show.
const tight = await fileEmulator({ seed: 112, workers: { taskTimeoutMs: 1, maxBufferMb: 64 } });
const small = await fileEmulator({ seed: 113, workers: { maxBufferMb: 64 } });

async function uploadSource(api: Client, emu: Emulator, name: string, type: string, content: Uint8Array | string) {
  const res = await api.post('/v1/knowledge/uploads', upload({ name, type, content }));
  expect(res.status, res.text).toBe(202);
  await emu.drain();
  return (await api.get(`/v1/knowledge/sources/${res.body.id}`)).body;
}

/** A PNG chunk: length, type, data, CRC. */
function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([head, body, crc]);
}

/** A black RGBA PNG of `size` x `size` whose pixels deflate to almost nothing. */
async function blackPng(size: number): Promise<Buffer> {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  // Each row: filter byte 0, then 4 zero bytes a pixel; all zeros deflate alike.
  const idat = await deflatedRun(size * (1 + size * 4), 0);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function assetForm(bytes: Uint8Array, name = 'upload.bin'): FormData {
  const body = new FormData();
  body.set('file', new File([bytes], name));
  return body;
}

describe('knowledge sources over a limit end failed with the limit named', () => {
  it(`a PDF of more than ${MAX_PDF_PAGES} pages: unsupported_document:too_many_pages`, async () => {
    const { api } = await workspace(emulator);
    const source = await uploadSource(
      api,
      emulator,
      'long.pdf',
      'application/pdf',
      textPdf(MAX_PDF_PAGES + 1, (n) => [`Page ${n}`]),
    );
    expect(source).toMatchObject({ status: 'failed', error: 'unsupported_document:too_many_pages', chunkCount: 0 });
  });

  it(`more than ${MAX_TEXT_CHARS} characters of text: unsupported_document:too_much_text`, async () => {
    const { api } = await workspace(emulator);
    const text = 'Kayaks are rented by the hour. '.repeat(Math.ceil((MAX_TEXT_CHARS + 10) / 31));
    const source = await uploadSource(api, emulator, 'huge.txt', 'text/plain', text);
    expect(source).toMatchObject({ status: 'failed', error: 'unsupported_document:too_much_text', chunkCount: 0 });
  });

  it('a small JSON document whose paths repeat long keys at every depth: too_much_text, the process unharmed', async () => {
    const { api } = await workspace(emulator);
    // 333 KB whose leaf paths would add up to about 470 million characters.
    let doc = '"v"';
    for (let i = 0; i < 3000; i++) doc = `{"${'k'.repeat(100)}":[${doc},"w"]}`;
    const source = await uploadSource(api, emulator, 'deep.json', 'application/json', doc);
    expect(source).toMatchObject({ status: 'failed', error: 'unsupported_document:too_much_text', chunkCount: 0 });
    expect((await api.get('/v1/me')).status).toBe(200);
  });

  it('structure nested deeper than the parsers recurse (Markdown quotes, HTML tags): unsupported_document, nothing logged as a fault', async () => {
    const logged: string[] = [];
    const deep = await fileEmulator({ seed: 114, log: (message) => logged.push(message) });
    try {
      const { api } = await workspace(deep);
      for (const [name, type, content] of [
        ['quotes.md', 'text/markdown', `${'>'.repeat(10_000)} x`],
        ['bold.html', 'text/html', `<html><body><p>${'<b>'.repeat(100_000)}hello world</p></body></html>`],
      ]) {
        const source = await uploadSource(api, deep, name!, type!, content!);
        expect(source, name).toMatchObject({ status: 'failed', error: 'unsupported_document', chunkCount: 0 });
      }
      expect(logged).toEqual([]);
    } finally {
      await deep.close();
    }
  });

  it('a document read past the time limit: ingest_failed:time_limit; the queue goes on', async () => {
    const { api } = await workspace(tight);
    const source = await uploadSource(
      api,
      tight,
      'pages.pdf',
      'application/pdf',
      textPdf(50, (n) => [`Page ${n} of the rental handbook.`]),
    );
    expect(source).toMatchObject({ status: 'failed', error: 'ingest_failed:time_limit' });
    // A claim needs no worker: the same emulator still ingests it.
    const claim = await api.post('/v1/knowledge/claims', { claim: { es: 'Abrimos a las nueve.', en: 'We open at nine.' } });
    await tight.drain();
    expect((await api.get(`/v1/knowledge/sources/${claim.body.id}`)).body.status).toBe('ready');
  });

  it('a PDF decompression bomb: ingest_failed:memory_limit, and the process stays small while it is read', async () => {
    const { api } = await workspace(small);
    // About 1 MB that pdf.js would inflate to 1 GiB (then copy) to read one font.
    const bomb = await fontBombPdf(1024 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(1.1 * 1024 * 1024);
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    try {
      const source = await uploadSource(api, small, 'bomb.pdf', 'application/pdf', bomb);
      expect(source).toMatchObject({ status: 'failed', error: 'ingest_failed:memory_limit', chunkCount: 0 });
    } finally {
      clearInterval(sampler);
    }
    // 64 MiB of buffers and the thread's heap; unbounded, this grew by more than 2 GB.
    expect(peak - base).toBeLessThan(450 * 1024 * 1024);
    // The next document is read as usual.
    const ok = await uploadSource(
      api,
      small,
      'warranty.pdf',
      'application/pdf',
      readFileSync(join(import.meta.dirname, '..', 'fixtures', 'knowledge', 'warranty.pdf')),
    );
    expect(ok.status).toBe('ready');
    // 11 s alone on a clean clone; past the default 30 s on two cores shared with another test run.
  }, 120_000);

  it('a burst of uploads is read a few pages per task, and the one of them over the memory limit fails alone (D-1222)', async () => {
    const { api } = await workspace(small);
    // Every upload accepted before the queue looks, as a burst's are once it has a backlog.
    await small.service.jobs.stop();
    const ids: string[] = [];
    try {
      for (let i = 0; i < 12; i++) {
        // 256 KB that pdf.js would inflate to 256 MiB, four times the buffer limit.
        const file =
          i === 5
            ? { name: 'bomb.pdf', type: 'application/pdf', content: await fontBombPdf(256 * 1024 * 1024) }
            : { name: `page-${i}.html`, type: 'text/html', content: html(`Opening hours ${i}`, `<p>Branch ${i} opens at ${i + 7} o'clock.</p>`) };
        const res = await api.post('/v1/knowledge/uploads', upload(file));
        expect(res.status, res.text).toBe(202);
        ids.push(res.body.id);
      }
    } finally {
      await small.service.jobs.start();
    }
    const tasks = small.service.workers.tasksStarted;
    await small.drain();
    const sources = await Promise.all(ids.map(async (id) => (await api.get(`/v1/knowledge/sources/${id}`)).body));
    expect(sources[5]).toMatchObject({ status: 'failed', error: 'ingest_failed:memory_limit', chunkCount: 0 });
    expect(sources.filter((s) => s.status === 'ready')).toHaveLength(11);
    // Fewer tasks than documents, the bomb's group read again one by one included.
    expect(small.service.workers.tasksStarted - tasks).toBeLessThan(ids.length);
  }, 120_000);
});

describe("uploads whose check goes over a limit are refused with the route's format code", () => {
  it('an asset checked past the time limit: 415 svc.asset.format_unsupported saying why, nothing stored', async () => {
    const { api } = await workspace(tight);
    const res = await api.post('/v1/assets', assetForm(await blackPng(1500)));
    expect(res.status, res.text).toBe(415);
    expect(res.body.code).toBe('svc.asset.format_unsupported');
    expect(res.body.errors).toEqual([{ field: 'file', reason: 'checking the file ran over its time limit' }]);
    expect((await api.get('/v1/assets')).body.data).toEqual([]);
  });

  it('an asset whose decoding needs more than the buffer limit: 415 saying memory', async () => {
    const { api } = await workspace(small);
    // 5,000 x 5,000 RGBA: 100 MB of pixels from a file of about 100 KB.
    const res = await api.post('/v1/assets', assetForm(await blackPng(5000)));
    expect(res.status, res.text).toBe(415);
    expect(res.body.errors).toEqual([{ field: 'file', reason: 'checking the file ran over its memory limit' }]);
  });

  it('a brand file checked past the time limit: 415 svc.brand.format_unsupported saying why', async () => {
    const { api } = await workspace(tight);
    const site = (await api.post('/v1/projects', { name: 'Tight brand' })).body.id;
    const res = await api.put(`/v1/projects/${site}/brand/logo`, assetForm(await blackPng(1500), 'logo.png'));
    expect(res.status, res.text).toBe(415);
    expect(res.body.code).toBe('svc.brand.format_unsupported');
    expect(res.body.errors).toEqual([{ field: 'file', reason: 'checking the file ran over its time limit' }]);
    expect((await api.get(`/v1/projects/${site}/brand`)).body.logo).toBeNull();
  });
});

describe('images are judged by their whole structure', () => {
  const png = fixture('image.png');
  const jpeg = fixture('image.jpg');
  const gif = fixture('image.gif');
  const webp = fixture('image.webp');
  const html = new TextEncoder().encode('<html><body><script>alert(document.domain)</script></body></html>');
  const join2 = (a: Uint8Array, b: Uint8Array) => new Uint8Array(Buffer.concat([a, b]));
  const cases: [string, Uint8Array][] = [
    ['a GIF header followed by HTML', join2(gif.subarray(0, 13), html)],
    ['a GIF with its global colour table, then HTML', join2(gif.subarray(0, 13 + 3 * 2 ** ((gif[10]! & 7) + 1)), html)],
    ['a whole GIF with HTML after its trailer', join2(gif, html)],
    ['a JPEG cut after its header', jpeg.subarray(0, 200)],
    ['a JPEG cut in its image data', jpeg.subarray(0, jpeg.length - 300)],
    ['a whole JPEG with HTML after its end', join2(jpeg, html)],
    ['a whole PNG with HTML after IEND', join2(png, html)],
    [
      'a PNG whose image data is damaged',
      (() => {
        const bad = new Uint8Array(png);
        bad[60] = bad[60]! ^ 0xff;
        return bad;
      })(),
    ],
    ['a WebP cut short', webp.subarray(0, webp.length - 100)],
    ['a WebP with HTML after its RIFF chunk', join2(webp, html)],
  ];

  it.each(cases)('%s is refused with 415 svc.asset.format_unsupported', async (_name, bytes) => {
    const { api } = await workspace(emulator);
    const res = await api.post('/v1/assets', assetForm(bytes));
    expect(res.status, res.text).toBe(415);
    expect(res.body.code).toBe('svc.asset.format_unsupported');
    expect(res.body.errors).toEqual([{ field: 'file', reason: expect.any(String) }]);
  });

  it.each(cases.filter(([name]) => !name.includes('GIF')))('%s is refused in a brand slot with 415 svc.brand.format_unsupported', async (_name, bytes) => {
    const { api } = await workspace(emulator);
    const site = (await api.post('/v1/projects', { name: 'Polyglot brand' })).body.id;
    const res = await api.put(`/v1/projects/${site}/brand/logo`, assetForm(bytes, 'logo.png'));
    expect(res.status, res.text).toBe(415);
    expect(res.body.code).toBe('svc.brand.format_unsupported');
  });

  it('whole images still pass, with their size', async () => {
    const { api } = await workspace(emulator);
    for (const [name, bytes] of [
      ['png', png],
      ['jpg', jpeg],
      ['gif', gif],
      ['webp', webp],
      ['avif', fixture('image.avif')],
    ] as const) {
      const res = await api.post('/v1/assets', assetForm(bytes));
      expect(res.status, `${name}: ${res.text}`).toBe(201);
      expect(res.body.width).toBeGreaterThan(0);
    }
  });
});

describe('hosted page bodies', () => {
  async function publishedPage(emu: Emulator, slug: string, body: string) {
    const { api } = await workspace(emu);
    const project = (await api.post('/v1/projects', { name: `Site ${slug}`, slug })).body;
    const page = (await api.post(`/v1/projects/${project.id}/pages`, { name: 'Guide', kind: 'document', path: '/guide', body: { en: body } })).body;
    expect((await api.post(`/v1/pages/${page.id}/publish`)).status).toBe(200);
    return { api, page, view: () => send(emu, 'GET', `http://${slug}.localhost/guide`) };
  }

  it('are rendered once per version: views of an unchanged page render nothing, an edit renders again', async () => {
    const { api, page, view } = await publishedPage(emulator, 'render-once', '# Guide\n\nKayaks **by the hour**.');
    const before = emulator.service.workers.tasksStarted;
    const first = await Promise.all([view(), view(), view()]);
    for (const res of first) expect(res.text).toContain('<strong>by the hour</strong>');
    expect(emulator.service.workers.tasksStarted - before).toBe(1);
    expect((await view()).text).toContain('<strong>by the hour</strong>');
    expect(emulator.service.workers.tasksStarted - before).toBe(1);
    // The seeded clock is frozen: the version is the content, not updatedAt.
    expect((await api.patch(`/v1/pages/${page.id}`, { body: { en: '# Guide\n\nCanoes *by the day*.' } })).status).toBe(200);
    const edited = await view();
    expect(edited.text).toContain('<em>by the day</em>');
    expect(edited.text).not.toContain('Kayaks');
    expect(emulator.service.workers.tasksStarted - before).toBe(2);
  });

  it('that cannot be rendered within the limits are shown as escaped text, never as markup', async () => {
    const { view } = await publishedPage(tight, 'render-limit', '# Guide\n\n<script>alert(1)</script> **bold**');
    const res = await view();
    expect(res.status).toBe(200);
    expect(res.text).toContain('<pre># Guide\n\n&lt;script&gt;alert(1)&lt;/script&gt; **bold**</pre>');
    expect(res.text).not.toContain('<script>alert(1)');
  });
});

describe('the built CLI on a port (worker modules bundled beside dist/cli.js)', () => {
  /** The peak resident memory of a process so far (Linux `VmHWM`), in bytes. */
  const peakRss = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

  it('ingests a PDF and an HTML page, refuses a polyglot, checks an SVG logo, renders a page, and stays small through a PDF bomb', {
    timeout: 90_000,
  }, async () => {
    const cli = await startCli(['--fixtures', 'none', '--seed', '7']);
    try {
      const call = async (path: string, init: RequestInit = {}) => {
        const res = await fetch(`${cli.url}${path}`, init);
        const text = await res.text();
        return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
      };
      const ws = (await call('/_emulator/workspaces', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).body;
      const auth = { authorization: `Bearer ${ws.apiKey.secret}` };
      const settle = async (id: string) => {
        await call('/_emulator/queue/drain', { method: 'POST' });
        return (await call(`/v1/knowledge/sources/${id}`, { headers: auth })).body;
      };
      const pdf = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'knowledge', 'warranty.pdf'));
      const added = await call('/v1/knowledge/uploads', {
        method: 'POST',
        headers: auth,
        body: upload({ name: 'warranty.pdf', type: 'application/pdf', content: pdf }),
      });
      expect(added.status).toBe(202);
      expect(await settle(added.body.id)).toMatchObject({ status: 'ready', chunkCount: 1 });

      // The bundle's Turndown has no HTML parser of its own (D-1215): a page still reads as Markdown from linkedom's elements.
      const html =
        '<html><head><title>Hours</title></head><body><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav>' +
        '<main><h1>Opening hours</h1><p>We rent kayaks from <b>9:00</b> to 17:00 on weekdays.</p><pre><code>$ book --kayak</code></pre></main></body></html>';
      const hours = await call('/v1/knowledge/uploads', {
        method: 'POST',
        headers: auth,
        body: upload({ name: 'hours.html', type: 'text/html', content: Buffer.from(html) }),
      });
      expect(hours.status).toBe(202);
      expect(await settle(hours.body.id)).toMatchObject({ status: 'ready', title: 'Hours' });
      const agent = (
        await call('/v1/agents', {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Desk', identity: { businessName: 'Kayaks' } }),
        })
      ).body;
      const found = (
        await call(`/v1/agents/${agent.id}/query`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'when can I rent a kayak' }),
        })
      ).body;
      const passage = found.passages.find((p: { sourceId: string }) => p.sourceId === hours.body.id);
      expect(passage.text).toContain('We rent kayaks from **9:00** to 17:00 on weekdays.');
      expect(passage.text).toContain('```\n$ book --kayak\n```');
      expect(passage.text).not.toContain('Shop');

      const gif = fixture('image.gif');
      const polyglot = await call('/v1/assets', {
        method: 'POST',
        headers: auth,
        body: assetForm(new Uint8Array(Buffer.concat([gif.subarray(0, 13), Buffer.from('<html><script>alert(1)</script>')]))),
      });
      expect(polyglot.status).toBe(415);

      const site = (
        await call('/v1/projects', {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'CLI site', slug: 'cli-site' }),
        })
      ).body;
      const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10" fill="url(https://evil.example/p.svg#g"/></svg>';
      const logo = await call(`/v1/projects/${site.id}/brand/logo`, {
        method: 'PUT',
        headers: auth,
        body: assetForm(new TextEncoder().encode(svg), 'logo.svg'),
      });
      expect(logo.status).toBe(400);
      expect(logo.body.errors.map((e: { reason: string }) => e.reason)).toEqual(['external reference']);

      const page = (
        await call(`/v1/projects/${site.id}/pages`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Guide', kind: 'document', path: '/guide', body: { en: 'Kayaks **by the hour**.' } }),
        })
      ).body;
      await call(`/v1/pages/${page.id}/publish`, { method: 'POST', headers: auth });
      // fetch() will not send another Host: ask node:http.
      const view = await new Promise<string>((resolve, reject) => {
        const target = new URL(cli.url);
        get({ host: target.hostname, port: target.port, path: '/guide', headers: { host: 'cli-site.localhost' } }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve(text));
        }).on('error', reject);
      });
      expect(view).toContain('<strong>by the hour</strong>');

      // About 1 MB that would inflate to 1 GiB: the default limits hold the whole process.
      const bomb = await call('/v1/knowledge/uploads', {
        method: 'POST',
        headers: auth,
        body: upload({ name: 'bomb.pdf', type: 'application/pdf', content: await fontBombPdf(1024 * 1024 * 1024) }),
      });
      // On a machine busy with other work the time limit can come first (a CI run beside
      // other processes saw it): either limit ends it; what this checks is the process.
      const failed = await settle(bomb.body.id);
      expect(failed.status).toBe('failed');
      expect(failed.error).toMatch(/^ingest_failed:(memory_limit|time_limit)$/);
      expect(peakRss(cli.child.pid!)).toBeLessThan(1024 * 1024 * 1024);
    } finally {
      cli.child.kill('SIGTERM');
      await exited(cli.child);
    }
  });
});
