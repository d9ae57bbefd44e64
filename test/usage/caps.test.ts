import { describe, expect, it } from 'vitest';
import type { Client } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';

const emulator = await fileEmulator({ seed: 65 });

type Ws = Awaited<ReturnType<typeof workspace>>;

// Slugs are global: every site of this file gets a name of its own.
let sites = 0;
const siteName = () => `Capped site ${++sites}`;
let knowledgeAdds = 0;

/** How each capped item is created through the API, with what the workspace needs first. */
const ITEMS: Record<
  string,
  {
    created?: number;
    prepare(api: Client): Promise<Record<string, string>>;
    create(api: Client, ctx: Record<string, string>, i: number): ReturnType<Client['post']>;
  }
> = {
  projects: {
    prepare: async () => ({}),
    create: (api) => api.post('/v1/projects', { name: siteName() }),
  },
  agents: {
    prepare: async () => ({}),
    create: (api, _ctx, i) => api.post('/v1/agents', { name: `Agent ${i}`, identity: { businessName: 'Acme' } }),
  },
  pages: {
    prepare: async (api) => ({ projectId: (await api.post('/v1/projects', { name: siteName() })).body.id }),
    create: (api, ctx, i) => api.post(`/v1/projects/${ctx.projectId}/pages`, { name: `Page ${i}`, kind: 'document', path: `/p${i}` }),
  },
  knowledgeDocuments: {
    created: 202,
    prepare: async () => ({}),
    // Every kind of source is a knowledge document: text, claims, uploads and URLs.
    create: (api, _ctx, i) => {
      const kind = knowledgeAdds++ % 4;
      if (kind === 0) return api.post('/v1/knowledge/text', { title: `Doc ${i}`, text: `Opening hours, version ${i}.` });
      if (kind === 1) return api.post('/v1/knowledge/claims', { claim: { es: `Abrimos ${i}`, en: `We open ${i}` } });
      if (kind === 2) {
        const upload = new FormData();
        upload.set('file', new File([`# Prices ${i}\n\nCoffee 2 EUR.`], `prices-${i}.md`, { type: 'text/markdown' }));
        return api.post('/v1/knowledge/uploads', upload);
      }
      return api.post('/v1/knowledge/urls', { url: `https://example.com/page-${i}` });
    },
  },
};

async function setCap(ws: Ws, caps: Record<string, number | null>) {
  expect((await ws.control.patch(`/_emulator/workspaces/${ws.workspaceId}`, { caps })).status).toBe(200);
}

describe.each(Object.keys(ITEMS))('plan cap of %s', (cap) => {
  const item = ITEMS[cap]!;

  it('the cap is reached, not passed: 402 svc.billing.limit_reached naming it, nothing created', async () => {
    const ws = await workspace(emulator);
    const ctx = await item.prepare(ws.api);
    const before = (await ws.api.get('/v1/usage')).body.counts[cap];
    await setCap(ws, { [cap]: before + 2 });
    for (const i of [1, 2]) expect((await item.create(ws.api, ctx, i)).status).toBe(item.created ?? 201);
    const refused = await item.create(ws.api, ctx, 3);
    expect(refused.status).toBe(402);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.body.code).toBe('svc.billing.limit_reached');
    expect(refused.body.errors[0].field).toBe(cap);
    const usage = (await ws.api.get('/v1/usage')).body;
    expect(usage.counts[cap]).toBe(before + 2);
    expect(usage.caps[cap]).toBe(before + 2);
  });

  it('raising the cap, or lifting it with null, lets creation go on', async () => {
    const ws = await workspace(emulator);
    const ctx = await item.prepare(ws.api);
    const before = (await ws.api.get('/v1/usage')).body.counts[cap];
    await setCap(ws, { [cap]: before });
    expect((await item.create(ws.api, ctx, 1)).status).toBe(402);
    await setCap(ws, { [cap]: before + 1 });
    expect((await item.create(ws.api, ctx, 1)).status).toBe(item.created ?? 201);
    expect((await item.create(ws.api, ctx, 2)).status).toBe(402);
    await setCap(ws, { [cap]: null });
    expect((await item.create(ws.api, ctx, 2)).status).toBe(item.created ?? 201);
    expect((await ws.api.get('/v1/usage')).body.counts[cap]).toBe(before + 2);
  });

  it('a cap lowered below what exists keeps what exists and refuses more', async () => {
    const ws = await workspace(emulator);
    const ctx = await item.prepare(ws.api);
    for (const i of [1, 2]) expect((await item.create(ws.api, ctx, i)).status).toBe(item.created ?? 201);
    await setCap(ws, { [cap]: 0 });
    expect((await item.create(ws.api, ctx, 3)).status).toBe(402);
    const usage = (await ws.api.get('/v1/usage')).body;
    expect(usage.caps[cap]).toBe(0);
    expect(usage.counts[cap]).toBeGreaterThanOrEqual(2);
  });
});

describe('caps are per workspace', () => {
  it("one workspace's cap never refuses another's creation", async () => {
    const capped = await workspace(emulator);
    const free = await workspace(emulator);
    await setCap(capped, { agents: 0, projects: 0 });
    expect((await ITEMS.agents!.create(capped.api, {}, 1)).status).toBe(402);
    expect((await ITEMS.agents!.create(free.api, {}, 1)).status).toBe(201);
    expect((await ITEMS.projects!.create(free.api, {}, 99)).status).toBe(201);
  });
});
