import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileEmulator, workspace } from '../support/emulator.js';
import { putWeb, settled, upload } from './support.js';

const emulator = await fileEmulator({ seed: 11 });
const pdf = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'knowledge', 'warranty.pdf'));

/** Windows-1251 bytes of ASCII and Russian letters (А..я, U+0410..U+044F, are 0xC0..0xFF). */
function cp1251(text: string): Uint8Array {
  return Uint8Array.from(
    [...text].map((c) => {
      const code = c.codePointAt(0)!;
      if (code < 0x80) return code;
      if (code >= 0x410 && code <= 0x44f) return code - 0x410 + 0xc0;
      throw new Error(`not in the test's Windows-1251: ${c}`);
    }),
  );
}

const join2 = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
const META_PAGE = join2(new TextEncoder().encode('<meta charset="windows-1251"><title>T</title><p>'), cp1251('Привет мир'));

/** The text of a source's chunks, in order. */
async function chunkText(sourceId: string): Promise<string> {
  const rows = await emulator.service.db.selectFrom('knowledge_chunks').select('text').where('source_id', '=', sourceId).orderBy('position').execute();
  return rows.map((r) => r.text).join('\n');
}

describe('a web page is decoded as a browser decodes it (D-1189)', () => {
  it('a URL source served as text/html without a charset reads its <meta charset>', async () => {
    const { api, control } = await workspace(emulator);
    const url = 'https://ru.example/';
    await putWeb(control, { pages: [{ url, headers: { 'content-type': 'text/html' }, bodyBase64: Buffer.from(META_PAGE).toString('base64') }] });
    const id = (await api.post('/v1/knowledge/urls', { url })).body.id;
    expect(await settled(emulator, api, id)).toMatchObject({ status: 'ready', title: 'T' });
    expect(await chunkText(id)).toBe('Привет мир');
  });

  it('an uploaded HTML file reads its <meta charset>', async () => {
    const { api } = await workspace(emulator);
    const res = await api.post('/v1/knowledge/uploads', upload({ name: 'meta.html', type: 'text/html', content: META_PAGE }));
    expect(res.status).toBe(202);
    expect(await settled(emulator, api, res.body.id)).toMatchObject({ status: 'ready', title: 'T' });
    expect(await chunkText(res.body.id)).toBe('Привет мир');
  });
});

describe("an upload's declared charset (D-1190)", () => {
  it('decodes the file with the charset its part declares', async () => {
    const { api } = await workspace(emulator);
    const text = 'Привет мир, как дела';
    const res = await api.post('/v1/knowledge/uploads', upload({ name: 'notes.txt', type: 'text/plain; charset=windows-1251', content: cp1251(text) }));
    expect(res.status).toBe(202);
    expect(res.body.contentType).toBe('text/plain');
    expect(await settled(emulator, api, res.body.id)).toMatchObject({ status: 'ready' });
    expect(await chunkText(res.body.id)).toBe(text);
    // The part's charset is the transport's: it outranks a page's <meta>, as an HTTP header does.
    const page = join2(new TextEncoder().encode('<meta charset="utf-8"><p>'), cp1251(text));
    const html = await api.post('/v1/knowledge/uploads', upload({ name: 'page.html', type: 'text/html; charset=cp1251', content: page }));
    expect(await settled(emulator, api, html.body.id)).toMatchObject({ status: 'ready' });
    expect(await chunkText(html.body.id)).toBe(text);
  });

  it('rides on the ingestion job: a state holding the pending upload passes the gate and is read in it', async () => {
    const { api } = await workspace(emulator);
    const seed = await api.post('/v1/knowledge/uploads', upload({ name: 'seed.txt', type: 'text/plain', content: 'A seed for the state.' }));
    await settled(emulator, api, seed.body.id);
    const state = structuredClone(await emulator.exportState({ plainHashes: true })) as any;
    const source = state.tables.knowledge_sources.find((s: any) => s.id === seed.body.id);
    const id = `src_${'y'.repeat(26)}`;
    const now = new Date(state.clock.value).toISOString();
    const text = 'Привет из очереди';
    state.tables.knowledge_sources.push({
      ...source,
      id,
      status: 'pending',
      title: 'queued.txt',
      file_name: 'queued.txt',
      byte_size: text.length,
      lang: 'en',
      source_lang: null,
      chunk_count: 0,
      token_count: 0,
      summary: '',
      content_hash: null,
      created_at: now,
      updated_at: now,
    });
    state.tables.knowledge_inputs.push({
      source_id: id,
      workspace_id: source.workspace_id,
      content: { $bytes: Buffer.from(cp1251(text)).toString('base64') },
      created_at: now,
    });
    state.tables.jobs.push({
      id: `job_${'y'.repeat(26)}`,
      workspace_id: source.workspace_id,
      kind: 'knowledge.ingest',
      payload: JSON.stringify({ sourceId: id, charset: 'windows-1251' }),
      status: 'queued',
      run_at: now,
      attempts: 0,
      last_error: null,
      created_at: now,
      updated_at: now,
    });
    await emulator.importState(state, { plainHashes: true });
    expect(await settled(emulator, api, id)).toMatchObject({ status: 'ready' });
    expect(await chunkText(id)).toBe(text);
  });
});

describe('a URL response whose bytes are not the text its type declares (D-1191)', () => {
  it('fails with unsupported_document: binary declared as text/plain, a PDF declared as text/html', async () => {
    const { api, control } = await workspace(emulator);
    const png = Uint8Array.from([
      0x89,
      0x50,
      0x4e,
      0x47,
      0x0d,
      0x0a,
      0x1a,
      0x0a,
      0,
      0,
      0,
      0x0d,
      0x49,
      0x48,
      0x44,
      0x52,
      ...new TextEncoder().encode(' words here'),
    ]);
    const utf16 = Uint8Array.from([0xff, 0xfe, ...Buffer.from('Plain words in UTF-16.', 'utf16le')]);
    await putWeb(control, {
      pages: [
        { url: 'https://lie.example/png', headers: { 'content-type': 'text/plain' }, bodyBase64: Buffer.from(png).toString('base64') },
        { url: 'https://lie.example/pdf', headers: { 'content-type': 'text/html' }, bodyBase64: pdf.toString('base64') },
        { url: 'https://lie.example/untyped', bodyBase64: Buffer.from(png).toString('base64') },
        { url: 'https://lie.example/utf16', headers: { 'content-type': 'text/plain' }, bodyBase64: Buffer.from(utf16).toString('base64') },
      ],
    });
    const add = async (url: string) => (await api.post('/v1/knowledge/urls', { url })).body.id as string;
    const ids = { png: await add('https://lie.example/png'), pdf: await add('https://lie.example/pdf'), untyped: await add('https://lie.example/untyped') };
    const utf16Id = await add('https://lie.example/utf16');
    for (const [name, id] of Object.entries(ids)) {
      expect(await settled(emulator, api, id), name).toMatchObject({ status: 'failed', error: 'unsupported_document', chunkCount: 0 });
    }
    // Text a byte order mark announces as UTF-16 holds NUL bytes and is still text (D-1086).
    expect(await settled(emulator, api, utf16Id)).toMatchObject({ status: 'ready' });
    expect(await chunkText(utf16Id)).toBe('Plain words in UTF-16.');
  });
});
