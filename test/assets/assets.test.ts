import { describe, expect, it } from 'vitest';
import { send, walk } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';
import { siteWithPage, upload } from './support.js';

const emulator = await fileEmulator({ seed: 63 });
const doc = (await send(emulator, 'GET', '/v1/openapi.json')).body;

describe('GET /v1/assets', () => {
  it('lists newest first without gaps, each with a signed URL', async () => {
    const { api } = await workspace(emulator);
    const ids: string[] = [];
    for (const name of ['image.png', 'image.jpg', 'image.gif', 'video-2s.webm', 'image.webp']) ids.push((await upload(api, name)).body.id);
    const page = await api.get('/v1/assets?limit=2');
    expect(page.status).toBe(200);
    expect(page.body.data.map((a: { id: string }) => a.id)).toEqual([ids[4], ids[3]]);
    expect(page.body.hasMore).toBe(true);
    expectMatchesOpenApi(doc, 'GET', '/v1/assets', 200, page.body);
    expect((await walk(api, '/v1/assets', 2)).map((a) => a.id)).toEqual([...ids].reverse());
    for (const a of page.body.data) expect(a.url).toContain(`/files/${a.id}?expires=`);
  });

  it('filters by page, key and kind', async () => {
    const { api } = await workspace(emulator);
    const { pageId } = await siteWithPage(api, 'filters');
    const hero = (await upload(api, 'image.png', { key: 'hero', pageId })).body;
    const clip = (await upload(api, 'video-2s.mp4', { key: 'clip', pageId })).body;
    const loose = (await upload(api, 'image.png', { key: 'hero' })).body;
    const ids = async (q: string) => (await api.get(`/v1/assets?${q}`)).body.data.map((a: { id: string }) => a.id);
    expect(await ids(`pageId=${pageId}`)).toEqual([clip.id, hero.id]);
    expect(await ids('key=hero')).toEqual([loose.id, hero.id]);
    expect(await ids(`pageId=${pageId}&key=hero`)).toEqual([hero.id]);
    expect(await ids('kind=video')).toEqual([clip.id]);
    const bad = await api.get('/v1/assets?kind=audio');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('svc.request.validation_failed');
    expect(bad.body.errors[0].field).toBe('kind');
  });

  it('limit 100 is taken, 101 and a forged cursor are 400', async () => {
    const { api } = await workspace(emulator);
    expect((await api.get('/v1/assets?limit=100')).status).toBe(200);
    for (const q of ['limit=101', 'limit=0', 'after=forged']) {
      const res = await api.get(`/v1/assets?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.code).toBe('svc.request.validation_failed');
    }
  });

  it('needs assets:read; write never implies read', async () => {
    const { api } = await workspace(emulator, { scopes: ['assets:write'] });
    const asset = (await upload(api, 'image.png')).body;
    for (const path of ['/v1/assets', `/v1/assets/${asset.id}`]) {
      const res = await api.get(path);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('svc.api_key.scope_missing');
    }
  });
});

describe('GET and DELETE /v1/assets/{assetId}', () => {
  it('get answers the asset with a fresh URL; delete removes it once', async () => {
    const { api } = await workspace(emulator);
    const created = (await upload(api, 'image.gif', { alt: 'Spinner' })).body;
    const got = await api.get(`/v1/assets/${created.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created);
    expectMatchesOpenApi(doc, 'GET', '/v1/assets/{assetId}', 200, got.body);
    const deleted = await api.delete(`/v1/assets/${created.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ assetId: created.id, deleted: true });
    expectMatchesOpenApi(doc, 'DELETE', '/v1/assets/{assetId}', 200, deleted.body);
    for (const res of [await api.get(`/v1/assets/${created.id}`), await api.delete(`/v1/assets/${created.id}`)]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('svc.asset.not_found');
    }
    expect((await api.get('/v1/assets')).body.data).toEqual([]);
  });

  it('a key reaches only its own workspace', async () => {
    const a = await workspace(emulator);
    const b = await workspace(emulator);
    const asset = (await upload(a.api, 'image.png')).body;
    for (const res of [await b.api.get(`/v1/assets/${asset.id}`), await b.api.delete(`/v1/assets/${asset.id}`)]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('svc.asset.not_found');
    }
    expect((await b.api.get('/v1/assets')).body.data).toEqual([]);
    expect((await a.api.get(`/v1/assets/${asset.id}`)).status).toBe(200);
  });

  it('deleting needs assets:write', async () => {
    const owner = await workspace(emulator);
    const asset = (await upload(owner.api, 'image.png')).body;
    const reader = await workspace(emulator, { scopes: ['assets:read'] });
    const res = await reader.api.delete(`/v1/assets/${asset.id}`);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('svc.api_key.scope_missing');
  });
});
