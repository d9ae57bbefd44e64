import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { walk } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';
import { openapi, settled, upload } from './support.js';

const emulator = await fileEmulator({ seed: 6 });
const doc = await openapi(emulator);
const index = emulator.service.knowledge.index;
const pdf = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'knowledge', 'warranty.pdf'));

describe('uploads', () => {
  it('read text, Markdown, HTML, CSV, JSON and PDF files, each ready and searchable', async () => {
    const { api, workspaceId } = await workspace(emulator);
    const files = [
      { name: 'notes.txt', type: 'text/plain', content: 'Plain notes about tandem bicycles.', contentType: 'text/plain', word: 'tandem' },
      { name: 'guide.md', type: 'text/markdown', content: '# Guide\n\nHow to adjust derailleurs.', contentType: 'text/markdown', word: 'derailleurs' },
      {
        name: 'page.html',
        type: 'text/html',
        content: '<html><body><nav>Skip me</nav><p>Panniers fit every rack.</p></body></html>',
        contentType: 'text/html',
        word: 'panniers',
      },
      { name: 'prices.csv', type: 'text/csv', content: 'item,price\nsaddle,30\nbell,5', contentType: 'text/csv', word: 'saddle' },
      {
        name: 'faq.json',
        type: 'application/json',
        content: JSON.stringify({ faq: [{ q: 'Do you sell unicycles?', a: 'Yes' }] }),
        contentType: 'application/json',
        word: 'unicycles',
      },
      { name: 'warranty.pdf', type: 'application/pdf', content: pdf, contentType: 'application/pdf', word: 'warranty' },
    ];
    for (const f of files) {
      const res = await api.post('/v1/knowledge/uploads', upload(f));
      expect(res.status, f.name).toBe(202);
      expect(res.body).toMatchObject({
        kind: 'upload',
        status: 'pending',
        fileName: f.name,
        title: f.name,
        contentType: f.contentType,
        byteSize: Buffer.byteLength(f.content as string),
      });
      expectMatchesOpenApi(doc, 'POST', '/v1/knowledge/uploads', 202, res.body);
      const ready = await settled(emulator, api, res.body.id);
      expect(ready.status, f.name).toBe('ready');
      const hits = await index.searchLexical(workspaceId, 'agt_any', f.word, 5);
      expect(
        hits.map((h) => h.chunkId.slice(4, 30)),
        f.name,
      ).toContain(res.body.id.slice(4));
    }
    expect(await index.searchLexical(workspaceId, 'agt_any', 'skip', 5)).toEqual([]);
  });

  it('without a title, are titled by the document itself once read (HTML <title>, Markdown # heading), else by the file name', async () => {
    const { api } = await workspace(emulator);
    const cases = [
      {
        file: { name: 'hours.html', type: 'text/html', content: '<html><head><title>Opening hours</title></head><body><p>We open at nine.</p></body></html>' },
        title: 'Opening hours',
      },
      { file: { name: 'guide.md', type: 'text/markdown', content: '# Fitting a rack\n\nTighten the bolts.' }, title: 'Fitting a rack' },
      { file: { name: 'notes.txt', type: 'text/plain', content: 'Plain notes without a heading.' }, title: 'notes.txt' },
      {
        file: { name: 'named.html', type: 'text/html', content: '<html><head><title>Its own</title></head><body><p>Text.</p></body></html>' },
        fields: { title: 'Given by the client' },
        title: 'Given by the client',
      },
    ];
    for (const c of cases) {
      const res = await api.post('/v1/knowledge/uploads', upload(c.file, c.fields ?? {}));
      expect(res.status, c.file.name).toBe(202);
      expect(await settled(emulator, api, res.body.id), c.file.name).toMatchObject({ status: 'ready', fileName: c.file.name, title: c.title });
    }
  });

  it('take a title, topics as a JSON array and an agent; a generic type falls back to the extension', async () => {
    const { api } = await workspace(emulator);
    const agentId = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id;
    const res = await api.post(
      '/v1/knowledge/uploads',
      upload(
        { name: 'policy.md', type: 'application/octet-stream', content: '# Policy' },
        { title: 'Store policy', topics: '["Returns","returns","faq"]', agentId },
      ),
    );
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ title: 'Store policy', topics: ['returns', 'faq'], agentId, contentType: 'text/markdown', fileName: 'policy.md' });
  });

  it('refuse a missing or empty file and bad fields with 400 svc.knowledge.source_invalid, writing nothing', async () => {
    const { api } = await workspace(emulator);
    const noFile = new FormData();
    noFile.append('title', 'Nothing attached');
    const cases: [FormData, string][] = [
      [noFile, 'file'],
      [upload({ name: 'empty.txt', type: 'text/plain', content: '' }), 'file'],
      // Blank, as a blank text on /v1/knowledge/text is (D-1109): not accepted to fail later.
      [upload({ name: 'blank.txt', type: 'text/plain', content: ' \n\t\r\n ' }), 'file'],
      [upload({ name: 'blank.md', type: 'text/markdown', content: '\uFEFF\n\n' }), 'file'],
      [upload({ name: 'blank.html', type: 'text/html', content: '   ' }), 'file'],
      [upload({ name: 'a.txt', content: 'x' }, { topics: 'faq' }), 'topics'],
      [upload({ name: 'a.txt', content: 'x' }, { topics: '["bad tag"]' }), 'topics.0'],
      [upload({ name: 'a.txt', content: 'x' }, { title: 't'.repeat(121) }), 'title'],
      [upload({ name: 'a.txt', content: 'x' }, { colour: 'red' }), 'colour'],
      // A name a source could not keep and show (D-1086).
      [upload({ name: `${'n'.repeat(252)}.txt`, type: 'text/plain', content: 'x' }), 'file'],
      [upload({ name: `${'n'.repeat(1_000_000)}.txt`, type: 'text/plain', content: 'x' }), 'file'],
      [upload({ name: 'bell\u0007.txt', type: 'text/plain', content: 'x' }), 'file'],
    ];
    const stringFile = new FormData();
    stringFile.append('file', 'just a string');
    cases.push([stringFile, 'file']);
    // Two files or two titles: keeping one would drop the other without a word (D-1097).
    const twoFiles = upload({ name: 'refunds.txt', content: 'Refunds within 14 days.' });
    twoFiles.append('file', new File(['Parking behind the shop.'], 'parking.txt', { type: 'text/plain' }));
    cases.push([twoFiles, 'file']);
    const twoTitles = upload({ name: 'a.txt', content: 'x' }, { title: 'First' });
    twoTitles.append('title', 'Second');
    cases.push([twoTitles, 'title']);
    for (const [form, field] of cases) {
      const res = await api.post('/v1/knowledge/uploads', form);
      expect(res.status, field).toBe(400);
      expect(res.body.code).toBe('svc.knowledge.source_invalid');
      expect(res.body.errors[0].field).toBe(field);
    }
    const blank = await api.post('/v1/knowledge/uploads', upload({ name: 'blank.txt', type: 'text/plain', content: '\n \n' }));
    expect(blank.body.errors).toEqual([{ field: 'file', reason: 'must not be blank' }]);
    expect((await api.post('/v1/knowledge/uploads', upload({ name: 'a.txt', content: 'x' }, { agentId: 'agt_nope' }))).body.code).toBe('svc.agent.not_found');
    expect((await api.post('/v1/knowledge/uploads', { file: 'json is not multipart' })).body.code).toBe('svc.request.invalid');
    expect(await walk(api, '/v1/knowledge/sources')).toEqual([]);
    // 255 characters, astral ones counted once, is kept as sent.
    const longest = `${'😀'.repeat(251)}.txt`;
    const kept = await api.post('/v1/knowledge/uploads', upload({ name: longest, type: 'text/plain', content: 'Kayaks by the hour.' }));
    expect(kept.status).toBe(202);
    expect(kept.body.fileName).toBe(longest);
  });

  it('refuse formats the pipeline cannot read with 415 svc.knowledge.format_unsupported', async () => {
    const { api } = await workspace(emulator);
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
    for (const f of [
      { name: 'logo.png', type: 'image/png', content: png },
      { name: 'report.docx', type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', content: 'PK\u0003\u0004' },
      { name: 'fake.pdf', type: 'application/pdf', content: 'not a pdf' },
      { name: 'broken.json', type: 'application/json', content: '{"a":' },
      { name: 'binary.txt', type: 'text/plain', content: Uint8Array.from([104, 105, 0, 1, 2]) },
    ]) {
      const res = await api.post('/v1/knowledge/uploads', upload(f));
      expect(res.status, f.name).toBe(415);
      expect(res.body.code).toBe('svc.knowledge.format_unsupported');
    }
    expect(await walk(api, '/v1/knowledge/sources')).toEqual([]);
  });

  it('read the file names RFC 7578 clients send: filename* (RFC 5987) and an escaped quote (D-1194)', async () => {
    const { api } = await workspace(emulator);
    const type = { 'content-type': 'multipart/form-data; boundary=svc-rfc7578' };
    const body = (disposition: string, extra = '') =>
      Buffer.from(
        `--svc-rfc7578\r\nContent-Disposition: form-data; name="file"; ${disposition}\r\nContent-Type: text/markdown\r\n\r\n# Tandems\n\nHow to ride a tandem bicycle.\r\n${extra}--svc-rfc7578--\r\n`,
      );
    const cases: [string, Buffer, string][] = [
      ['filename* alone (.NET for a name outside ASCII)', body("filename*=UTF-8''r%C3%A9sum%C3%A9.md"), 'résumé.md'],
      ['filename and filename*', body('filename="resume.md"; filename*=UTF-8\'\'r%C3%A9sum%C3%A9.md'), 'résumé.md'],
      ['a quote escaped with a backslash (curl, Go)', body('filename="say \\"hi\\".md"'), 'say "hi".md'],
      [
        'with a title field after the file',
        body('filename="a\\"b.md"', '--svc-rfc7578\r\nContent-Disposition: form-data; name="title"\r\n\r\nTandem notes\r\n'),
        'a"b.md',
      ],
    ];
    for (const [what, bytes, fileName] of cases) {
      const res = await api.post('/v1/knowledge/uploads', bytes, type);
      expect([res.status, res.body.fileName], what).toEqual([202, fileName]);
      const source = await settled(emulator, api, res.body.id);
      expect(source.status, what).toBe('ready');
    }
    expect(
      (
        await api.post(
          '/v1/knowledge/uploads',
          body('filename="a\\"b.md"', '--svc-rfc7578\r\nContent-Disposition: form-data; name="title"\r\n\r\nTandem notes\r\n'),
          type,
        )
      ).body.title,
    ).toBe('Tandem notes');
    // What neither parser can read is still 400 svc.request.invalid.
    const broken = await api.post('/v1/knowledge/uploads', Buffer.from('--svc-rfc7578\r\nno headers at all'), type);
    expect([broken.status, broken.body.code]).toEqual([400, 'svc.request.invalid']);
  });

  it('take 20 MiB and refuse more with 413', async () => {
    const { api } = await workspace(emulator);
    const big = Buffer.alloc(20 * 1024 * 1024 + 1024, 'a');
    const res = await api.post('/v1/knowledge/uploads', upload({ name: 'big.txt', type: 'text/plain', content: big }));
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('svc.request.payload_too_large');
    const fits = await api.post('/v1/knowledge/uploads', upload({ name: 'fits.txt', type: 'text/plain', content: Buffer.alloc(19 * 1024 * 1024, 'a ') }));
    expect(fits.status).toBe(202);
  });

  it('a PDF that only looks like one fails after acceptance with unsupported_document', async () => {
    const { api } = await workspace(emulator);
    const res = await api.post('/v1/knowledge/uploads', upload({ name: 'torn.pdf', type: 'application/pdf', content: '%PDF-1.7\n1 0 obj garbage' }));
    expect(res.status).toBe(202);
    expect(await settled(emulator, api, res.body.id)).toMatchObject({ status: 'failed', error: 'unsupported_document' });
  });
});
