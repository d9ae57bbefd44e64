import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import type { Embedder } from '../../src/knowledge/ports.js';
import { reopenableStore } from '../support/store.js';
import { client } from '../support/client.js';
import { fileEmulator, quiet, workspace } from '../support/emulator.js';
import { addText, settled } from './support.js';

const emulator = await fileEmulator({ seed: 8 });
const index = emulator.service.knowledge.index;

async function agent(api: Awaited<ReturnType<typeof workspace>>['api'], name = 'Ada'): Promise<string> {
  return (await api.post('/v1/agents', { name, identity: { businessName: 'Acme' } })).body.id;
}

/** A stand-in for a real model: 8 dimensions, one per letter bucket. */
class LetterEmbedder implements Embedder {
  readonly id = 'letters-8';
  readonly dimensions = 8;
  calls = 0;
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls += 1;
    return texts.map((t) => {
      const v = new Float32Array(8);
      for (const ch of t.toLowerCase()) if (ch >= 'a' && ch <= 'z') v[(ch.charCodeAt(0) - 97) % 8]! += 1;
      const n = Math.hypot(...v) || 1;
      return v.map((x) => x / n);
    });
  }
}

describe('eligible chunks', () => {
  it("are the ready chunks of the agent's own sources and of the pool, with their source's title, topics, language and URL", async () => {
    const { api, control, workspaceId } = await workspace(emulator);
    const ada = await agent(api);
    const bob = await agent(api, 'Bob');
    await control.put('/_emulator/web', {
      pages: [{ url: 'https://bikes.example/', headers: { 'content-type': 'text/plain' }, body: 'Helmets are included.' }],
    });
    const own = await addText(api, { title: 'Own', text: 'Ada repairs tandems.', topics: ['repairs'], agentId: ada });
    const pool = await addText(api, { title: 'Pool', text: 'Abrimos los sábados por la mañana.' });
    const web = (await api.post('/v1/knowledge/urls', { url: 'https://bikes.example/' })).body.id;
    await addText(api, { title: 'Bob', text: 'Bob sells kayaks.', agentId: bob });
    await emulator.drain();
    await emulator.injectFault({ ingest: 'ingest_failed' });
    await addText(api, { title: 'Failed', text: 'Never ready.' });
    await emulator.drain();
    const chunks = await index.eligibleChunks(workspaceId, ada);
    expect(chunks.map((c) => c.sourceId).sort()).toEqual([own, pool, web].sort());
    const mine = chunks.find((c) => c.sourceId === own)!;
    expect(mine).toMatchObject({ agentId: ada, title: 'Own', text: 'Ada repairs tandems.', topics: ['repairs'], lang: 'en', tokenCount: expect.any(Number) });
    expect(mine.chunkId).toMatch(/^chk_/);
    expect(mine.vector).toHaveLength(256);
    expect(mine).not.toHaveProperty('url');
    expect(chunks.find((c) => c.sourceId === pool)).toMatchObject({ agentId: null, lang: 'es', topics: [] });
    expect(chunks.find((c) => c.sourceId === web)).toMatchObject({ url: 'https://bikes.example/', title: 'https://bikes.example/' });
    expect(await index.eligibleChunks(workspaceId, 'agt_unknown')).toHaveLength(2);
  });
});

describe('eligible chunks kept in memory', () => {
  it('follow every change after a first read: ingestion, retagging, re-crawls, deletions, agent deletion, state import', async () => {
    const { api, control, workspaceId } = await workspace(emulator);
    const ada = await agent(api);
    const titles = async () => (await index.eligibleChunks(workspaceId, ada)).map((c) => `${c.title}:${c.topics.join('+')}:${c.text.slice(0, 11)}`).sort();
    expect(await titles()).toEqual([]);
    await control.put('/_emulator/web', {
      pages: [{ url: 'https://memo.example/', headers: { 'content-type': 'text/plain' }, body: 'Version one of the page.' }],
    });
    const a = await addText(api, { title: 'A', text: 'Alpha text here.', topics: ['x'] });
    const b = await addText(api, { title: 'B', text: 'Bravo text here.', agentId: ada });
    const url = (await api.post('/v1/knowledge/urls', { url: 'https://memo.example/', syncTtlMinutes: 60 })).body.id;
    await emulator.drain();
    expect(await titles()).toEqual(['A:x:Alpha text ', 'B::Bravo text ', 'https://memo.example/::Version one']);
    await api.post('/v1/knowledge/topics/merge', { from: 'x', into: 'y' });
    expect(await titles()).toContain('A:y:Alpha text ');
    await control.put('/_emulator/web', {
      pages: [{ url: 'https://memo.example/', headers: { 'content-type': 'text/plain' }, body: 'Version two of the page.' }],
    });
    await control.post('/_emulator/clock', { advanceMs: 3_600_000 });
    expect(await titles()).toContain('https://memo.example/::Version two');
    await api.delete(`/v1/knowledge/sources/${a}`);
    expect(await titles()).toEqual(['B::Bravo text ', 'https://memo.example/::Version two']);
    const state = await emulator.exportState();
    await api.delete(`/v1/agents/${ada}`);
    expect((await index.eligibleChunks(workspaceId, ada)).map((c) => c.sourceId)).toEqual([url]);
    await emulator.importState(state);
    expect((await index.eligibleChunks(workspaceId, ada)).map((c) => c.sourceId).sort()).toEqual([b, url].sort());
  });
});

describe('lexical search', () => {
  it('finds words with or without accents, best match first, within the eligible chunks only', async () => {
    const { api, workspaceId } = await workspace(emulator);
    const ada = await agent(api);
    const bob = await agent(api, 'Bob');
    const phone = await addText(api, { title: 'Teléfono', text: 'Llame al teléfono de la tienda para reservar. El teléfono atiende de día.' });
    const cafe = await addText(api, { title: 'Café', text: 'The cafe serves coffee; the café is by the phone box.', agentId: ada });
    await addText(api, { title: 'Hidden', text: 'Bob has a telefono too.', agentId: bob });
    await emulator.drain();
    const chunkOf = async (id: string) => (await index.eligibleChunks(workspaceId, ada)).find((c) => c.sourceId === id)!.chunkId;
    const hits = await index.searchLexical(workspaceId, ada, 'TELEFONO tienda', 10);
    expect(hits.map((h) => h.chunkId)).toEqual([await chunkOf(phone)]);
    expect(hits[0]!.score).toBeGreaterThan(0);
    expect((await index.searchLexical(workspaceId, ada, 'café', 10)).map((h) => h.chunkId)).toEqual([await chunkOf(cafe)]);
    const both = await index.searchLexical(workspaceId, ada, 'teléfono phone', 10);
    expect(both.map((h) => h.chunkId).sort()).toEqual([await chunkOf(phone), await chunkOf(cafe)].sort());
    expect(both[0]!.score).toBeGreaterThanOrEqual(both[1]!.score);
    const ranked = await index.searchLexical(workspaceId, ada, 'phone teléfono tienda reservar', 10);
    expect(ranked.map((h) => h.chunkId)).toEqual([await chunkOf(phone), await chunkOf(cafe)]);
    expect(await index.searchLexical(workspaceId, ada, 'teléfono phone', 1)).toHaveLength(1);
    expect(await index.searchLexical(workspaceId, ada, '¿?', 10)).toEqual([]);
    expect(await index.searchLexical(workspaceId, ada, 'unicorn', 10)).toEqual([]);
    expect(await index.searchLexical(workspaceId, ada, 'the', 10)).toHaveLength(1);
    const other = await workspace(emulator);
    expect(await index.searchLexical(other.workspaceId, ada, 'teléfono', 10)).toEqual([]);
  });
});

describe('the knowledge version', () => {
  it('changes when what the agent can retrieve changes, and only then', async () => {
    const { api, workspaceId } = await workspace(emulator);
    const ada = await agent(api);
    const bob = await agent(api, 'Bob');
    const v0 = await index.version(workspaceId, ada);
    expect(await index.version(workspaceId, ada)).toBe(v0);
    const id = await addText(api, { title: 'Hours', text: 'Open at nine.', topics: ['hours'] });
    expect(await index.version(workspaceId, ada)).toBe(v0);
    await emulator.drain();
    const v1 = await index.version(workspaceId, ada);
    expect(v1).not.toBe(v0);
    await addText(api, { title: 'Bob only', text: 'Bob knowledge.', agentId: bob });
    await emulator.drain();
    expect(await index.version(workspaceId, ada)).toBe(v1);
    expect(await index.version(workspaceId, bob)).not.toBe(v1);
    await api.post('/v1/knowledge/topics/merge', { from: 'hours', into: 'opening-hours' });
    const v2 = await index.version(workspaceId, ada);
    expect(v2).not.toBe(v1);
    await api.delete(`/v1/knowledge/sources/${id}`);
    expect(await index.version(workspaceId, ada)).toBe(v0);
  });
});

describe('a replaceable embedder', () => {
  it('embeds with the embedder given to createEmulator', async () => {
    const embedder = new LetterEmbedder();
    const emu = await createEmulator({ embedder, log: quiet });
    try {
      const ws = await emu.createWorkspace();
      const api = client(emu, ws.apiKey.secret);
      const id = await addText(api, { title: 'T', text: 'abc' });
      expect((await settled(emu, api, id)).status).toBe('ready');
      const [chunk] = await emu.service.knowledge.index.eligibleChunks(ws.workspaceId, 'agt_x');
      expect(Array.from(chunk!.vector)).toEqual(Array.from((await embedder.embed(['abc']))[0]!));
      expect(emu.service.knowledge.index.embedder).toBe(embedder);
    } finally {
      await emu.close();
    }
  });

  it('re-embeds stored chunks when a store reopens with another embedder, and the version moves', async () => {
    const db = reopenableStore();
    const first = await createEmulator({ db, log: quiet });
    const ws = await first.createWorkspace();
    const id = await addText(client(first, ws.apiKey.secret), { title: 'T', text: 'Chunks written by the default embedder.' });
    await first.drain();
    const before = await first.service.knowledge.index.version(ws.workspaceId, 'agt_x');
    await first.close();
    const embedder = new LetterEmbedder();
    const second = await createEmulator({ db, embedder, log: quiet });
    try {
      const [chunk] = await second.service.knowledge.index.eligibleChunks(ws.workspaceId, 'agt_x');
      expect(chunk!.sourceId).toBe(id);
      expect(chunk!.vector).toHaveLength(8);
      expect(await second.service.knowledge.index.version(ws.workspaceId, 'agt_x')).not.toBe(before);
      const calls = embedder.calls;
      await second.service.knowledge.index.eligibleChunks(ws.workspaceId, 'agt_x');
      expect(embedder.calls).toBe(calls);
    } finally {
      await second.close();
    }
  });

  it('fails the source with ingest_failed when a replaced embedder breaks its promises', async () => {
    const broken: Embedder = { id: 'broken', dimensions: 4, embed: async (texts) => texts.map(() => new Float32Array(3)) };
    const emu = await createEmulator({ embedder: broken, log: quiet });
    try {
      const ws = await emu.createWorkspace();
      const api = client(emu, ws.apiKey.secret);
      const id = await addText(api, { title: 'T', text: 'x y z' });
      expect(await settled(emu, api, id)).toMatchObject({ status: 'failed', error: 'ingest_failed' });
    } finally {
      await emu.close();
    }
  });
});
