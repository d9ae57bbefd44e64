import { describe, expect, it, vi } from 'vitest';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../emulator/emulator.js';
import { AHEAD_SLICE, TermDictionary } from '../../src/knowledge/term-dictionary.js';
import { ANALYZER_ID, analyzeChunk, hasHeading, textBlocks } from '../../src/text/analyze.js';
import { reopenableStore } from '../support/store.js';
import { client } from '../support/client.js';
import { quiet } from '../support/emulator.js';
import { addText } from './support.js';

const MIXED = [
  '## Configuración de la red',
  'Para configurar la red, edite el fichero de interfaces y reinicie el servicio.',
  'The resolver keeps running while the interfaces are being reconfigured by the daemon.',
].join('\n\n');

/** A fresh emulator with one agent; `fn` adds texts, then asks. */
async function withAgent(fn: (api: ReturnType<typeof client>, agentId: string, drain: () => Promise<unknown>) => Promise<void>): Promise<void> {
  const emu = await createEmulator({ log: quiet });
  try {
    const ws = await emu.createWorkspace();
    const api = client(emu, ws.apiKey.secret);
    const agentId = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id;
    await fn(api, agentId, () => emu.drain());
  } finally {
    await emu.close();
  }
}

describe('block languages', () => {
  it('judges each paragraph of a partly translated chunk by its own words, and stems the chunk in the language most of it is written in', () => {
    expect(textBlocks(MIXED, 'es').map((b) => [b.heading, b.lang])).toEqual([
      [true, 'es'],
      [false, 'es'],
      [false, 'en'],
    ]);
    const { terms, lang } = analyzeChunk(MIXED, 'Red', 'es', false);
    expect(lang).toBe('es');
    // One language for the whole chunk, as a BM25 with Snowball stems over the chunk
    // would stem it (D-760): Spanish stems, also for the English paragraph's words.
    expect(terms).toEqual(expect.arrayContaining(['configur', 'ficher', 'reinici', 'resolv']));
  });

  it('gives a chunk of a document without headings its title as one, and leaves the stop words out', () => {
    const { terms, body } = analyzeChunk('Check-in starts at 15:00 at the reception.', 'Arrival and keys', 'en', false);
    expect(terms).toEqual(expect.arrayContaining(['check', 'start', '15', '00', 'recept', 'arriv', 'key']));
    expect(terms).not.toContain('the');
    expect(terms).not.toContain('at');
    expect(body.every((n) => n >= 1)).toBe(true);
  });

  it('leaves the title out of a chunk of a document that names its parts with headings (D-1043)', () => {
    // The second chunk of a long section carries no heading line of its own: its words are its own.
    const { terms } = analyzeChunk('Each line of the file is read in turn.', 'Sample bashrc files', 'en', true);
    expect(terms).toEqual(expect.arrayContaining(['line', 'file', 'read', 'turn']));
    expect(terms).not.toContain('sampl');
    expect(terms).not.toContain('bashrc');
    expect(hasHeading('Intro\n\n## Loops\n\nText')).toBe(true);
    expect(hasHeading('No #heading here\n    # a comment in code')).toBe(false);
  });

  it('reads a # line inside fenced code as code, not a heading: a document whose only # lines are prompts lends its title (D-1046)', async () => {
    const prompts = 'Put the web server in front of the application.\n\n```sh\n# apt install nginx\n# systemctl reload nginx\n```\n\nThen open port 80.';
    expect(hasHeading(prompts)).toBe(false);
    expect(hasHeading(`${prompts}\n\n## Certificates\n\nAdd TLS later.`)).toBe(true);
    expect(textBlocks(prompts, 'en').filter((b) => b.heading)).toEqual([]);
    await withAgent(async (api, agentId, drain) => {
      const id = await addText(api, { title: 'Reverse proxy setup', text: prompts });
      await addText(api, { title: 'Opening hours', text: 'The front desk opens at seven and the web shop never closes.' });
      await drain();
      const res = await api.post(`/v1/agents/${agentId}/query`, { query: 'How do I set up a reverse proxy?', limit: 2 });
      expect(res.status).toBe(200);
      expect(res.body.passages[0]?.sourceId).toBe(id);
    });
  });

  it('answers a question in either language about a partly translated document', async () => {
    await withAgent(async (api, agentId, drain) => {
      const id = await addText(api, { title: 'Red', text: MIXED });
      await addText(api, { title: 'Otra', text: 'Los horarios de la tienda son de nueve a cinco.' });
      await drain();
      for (const query of ['Is the resolver still running?', '¿Cómo configuro la red?']) {
        const res = await api.post(`/v1/agents/${agentId}/query`, { query, limit: 1 });
        expect(
          res.body.passages.map((p: { sourceId: string }) => p.sourceId),
          query,
        ).toEqual([id]);
      }
    });
  });
});

describe('stored terms', () => {
  async function reopen(db: EmulatorOptions['db'], fn: (emu: Emulator) => Promise<void>): Promise<void> {
    const emu = await createEmulator({ db, log: quiet });
    try {
      await fn(emu);
    } finally {
      await emu.close();
    }
  }

  async function ingestOne(db: EmulatorOptions['db']) {
    let out = { key: '', agentId: '', sourceId: '' };
    await reopen(db, async (emu) => {
      const ws = await emu.createWorkspace();
      const api = client(emu, ws.apiKey.secret);
      const agentId = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id;
      const sourceId = await addText(api, { title: 'Lighthouse', text: 'The lighthouse keeper polishes the lantern every morning.' });
      await addText(api, { title: 'Bakery', text: 'The bakery sells rye bread and croissants.' });
      await emu.drain();
      out = { key: ws.apiKey.secret, agentId, sourceId };
    });
    return out;
  }

  /** The chunks' text as the store holds it, changed behind the emulator's back. */
  async function rewrite(emu: Emulator, sourceId: string, text: string, analyzerId?: string): Promise<void> {
    await emu.service.db
      .updateTable('knowledge_chunks')
      .set({ text, ...(analyzerId !== undefined && { analyzer_id: analyzerId }) })
      .where('source_id', '=', sourceId)
      .execute();
  }

  it('are written at ingestion and read after a restart: the first query analyses no text', async () => {
    const db = reopenableStore();
    const { key, agentId, sourceId } = await ingestOne(db);
    await reopen(db, async (emu) => {
      const rows = await emu.service.db.selectFrom('knowledge_chunks').select(['analyzer_id', 'terms']).execute();
      expect(rows.every((r) => r.analyzer_id === ANALYZER_ID && r.terms !== null && r.terms.byteLength > 12)).toBe(true);
      // Text changed in the store under the same analyzer: ranking still reads the stored
      // terms, so the words ingestion analysed still find the chunk and the new ones do not.
      await rewrite(emu, sourceId, 'Penguins waddle across the glacier.');
    });
    await reopen(db, async (emu) => {
      const api = client(emu, key);
      const found = await api.post(`/v1/agents/${agentId}/query`, { query: 'Who polishes the lantern?', limit: 1 });
      expect(found.body.passages).toMatchObject([{ sourceId, text: 'Penguins waddle across the glacier.' }]);
      const missed = await api.post(`/v1/agents/${agentId}/query`, { query: 'penguins glacier', limit: 1 });
      expect(missed.body.passages).toEqual([]);
    });
  });

  it('are analysed again, once, when the analyzer id they were stored with is not the current one', async () => {
    const db = reopenableStore();
    const { key, agentId, sourceId } = await ingestOne(db);
    await reopen(db, async (emu) => rewrite(emu, sourceId, 'Penguins waddle across the glacier.', 'svc-older-analyzer'));
    await reopen(db, async (emu) => {
      const api = client(emu, key);
      const found = await api.post(`/v1/agents/${agentId}/query`, { query: 'penguins glacier', limit: 1 });
      expect(found.body.passages).toMatchObject([{ sourceId }]);
      const old = await api.post(`/v1/agents/${agentId}/query`, { query: 'Who polishes the lantern?', limit: 1 });
      expect(old.body.passages.map((p: { sourceId: string }) => p.sourceId)).not.toContain(sourceId);
      const rows = await emu.service.db.selectFrom('knowledge_chunks').select('analyzer_id').where('source_id', '=', sourceId).execute();
      expect(rows.map((r) => r.analyzer_id)).toEqual([ANALYZER_ID]);
    });
  });

  it('build a scope index that a restart reads back whole: its first query reads no chunk terms, and a new source builds it again', async () => {
    const db = reopenableStore();
    const { key, agentId, sourceId } = await ingestOne(db);
    const ask = async (emu: Emulator, query: string) =>
      (await client(emu, key).post(`/v1/agents/${agentId}/query`, { query, limit: 1 })).body.passages.map((p: { sourceId: string; text: string }) => [
        p.sourceId,
        p.text,
      ]);
    let before: unknown;
    await reopen(db, async (emu) => {
      before = await ask(emu, 'Who polishes the lantern?');
    });
    await reopen(db, async (emu) => {
      expect(await emu.service.db.selectFrom('knowledge_scope_indexes').select('agent_id').where('part', '=', 0).execute()).toEqual([{ agent_id: agentId }]);
      // Terms wiped behind the emulator's back: a read of the chunks would analyse them again.
      await emu.service.db.updateTable('knowledge_chunks').set({ terms: null }).execute();
    });
    await reopen(db, async (emu) => {
      expect(await ask(emu, 'Who polishes the lantern?')).toEqual(before);
      expect(before).toEqual([[sourceId, 'The lighthouse keeper polishes the lantern every morning.']]);
      const rows = await emu.service.db.selectFrom('knowledge_chunks').select('terms').execute();
      expect(rows.every((r) => r.terms === null)).toBe(true);
      const api = client(emu, key);
      const id = await addText(api, { title: 'Harbour', text: 'The harbour master rings the brass bell at noon.' });
      await emu.drain();
      expect(await ask(emu, 'Who rings the brass bell?')).toEqual([[id, 'The harbour master rings the brass bell at noon.']]);
      expect(await ask(emu, 'Who polishes the lantern?')).toEqual(before);
    });
  });
});

describe('the term dictionary', () => {
  it('gives the new words of a large source their ids in slices, each in its own transaction, in the order they first occur (D-1158)', async () => {
    const assign = vi.spyOn(TermDictionary.prototype, 'assign');
    const emu = await createEmulator({ log: quiet });
    try {
      const ws = await emu.createWorkspace();
      const api = client(emu, ws.apiKey.secret);
      const agentId = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id;
      // Part numbers of consonants: no stemmer rule changes them, no language claims them.
      const letters = 'bcdfghjklmnpqrtvwxz';
      const word = (i: number) => Array.from({ length: 5 }, (_, k) => letters[Math.floor(i / letters.length ** k) % letters.length]).join('');
      const words = Array.from({ length: AHEAD_SLICE + 4_000 }, (_, i) => word(i * 7));
      const sourceId = await addText(api, { title: 'Parts', text: words.join(' ') });
      await emu.drain();
      expect((await api.get(`/v1/knowledge/sources/${sourceId}`)).body.status).toBe('ready');
      const sizes = assign.mock.calls.map(([, , terms]) => terms.length);
      expect(sizes.filter((n) => n === AHEAD_SLICE)).toHaveLength(1);
      expect(sizes.filter((n) => n < AHEAD_SLICE && n >= 4_000)).toHaveLength(1);
      const rows = await emu.service.db.selectFrom('knowledge_terms').select(['term', 'id']).where('workspace_id', '=', ws.workspaceId).orderBy('id').execute();
      const given = new Set(words);
      expect(rows.map((r) => r.term).filter((t) => given.has(t))).toEqual(words);
      // A word of the last slice finds its source.
      const found = await api.post(`/v1/agents/${agentId}/query`, { query: words.at(-1), limit: 1 });
      expect(found.body.passages.map((p: { sourceId: string }) => p.sourceId)).toEqual([sourceId]);
    } finally {
      assign.mockRestore();
      await emu.close();
    }
  }, 60_000);
});
