import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DatabaseOptions } from '../../../src/db/database.js';
import { createEmulator, type Emulator } from '../../../emulator/emulator.js';
import { fetchFile, fixture, form } from '../../assets/support.js';
import { cleanSvgs, fileForm } from '../../brand/support.js';
import { client, walk } from '../../support/client.js';
import { quiet } from '../../support/emulator.js';

/** Assets and their bytes, brand files and navbar, and usage counts on one backend. */
export function assetsCases(db: () => DatabaseOptions): void {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await createEmulator({ db: db(), seed: 4, log: quiet });
  });
  afterAll(() => emulator.close());

  const newApi = async () => client(emulator, (await emulator.createWorkspace()).apiKey.secret);

  it('stores, lists, serves and deletes assets with identical answers and bytes', async () => {
    const api = await newApi();
    const image = await api.post('/v1/assets', form(fixture('image.webp'), 'a.webp', { key: 'hero', alt: 'Ñandú' }));
    expect(image.status).toBe(201);
    expect(image.body).toMatchObject({
      key: 'hero',
      alt: 'Ñandú',
      kind: 'image',
      contentType: 'image/webp',
      width: 36,
      height: 28,
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    const video = await api.post('/v1/assets', form(fixture('video-audio-3s.mp4'), 'clip.mp4'));
    expect(video.body).toMatchObject({ kind: 'video', contentType: 'video/mp4', durationSeconds: 3, width: 32, height: 24 });
    expect((await api.get(`/v1/assets/${image.body.id}`)).body).toEqual(image.body);
    expect((await walk(api, '/v1/assets', 1)).map((a) => a.id)).toEqual([video.body.id, image.body.id]);
    for (const [asset, name] of [
      [image.body, 'image.webp'],
      [video.body, 'video-audio-3s.mp4'],
    ] as const) {
      const file = await fetchFile(emulator, asset.url);
      expect(file.bytes).toEqual(fixture(name));
      expect(file.headers.get('content-length')).toBe(String(fixture(name).byteLength));
    }
    expect((await api.post('/v1/assets', form(fixture('image.png'), 'b.png', { key: 'hero' }))).status).toBe(409);
    expect((await api.delete(`/v1/assets/${image.body.id}`)).status).toBe(200);
    expect((await fetchFile(emulator, image.body.url)).status).toBe(404);
    expect((await api.post('/v1/assets', form(fixture('image.png'), 'b.png', { key: 'hero' }))).status).toBe(201);
  });

  it('keeps brand files, navbar and footer, and drops them with the site', async () => {
    const api = await newApi();
    const site = (await api.post('/v1/projects', { name: 'Store brand' })).body.id;
    const svg = cleanSvgs()[1]!.bytes;
    expect((await api.put(`/v1/projects/${site}/brand/logo`, fileForm(svg))).status).toBe(200);
    expect((await api.put(`/v1/projects/${site}/brand/favicon`, fileForm(fixture('favicon.ico')))).status).toBe(200);
    const patched = await api.patch(`/v1/projects/${site}/brand`, {
      navbar: { links: [{ label: { es: 'Carta', en: 'Menu' }, href: '/menu' }] },
      footer: { text: { es: '© Ñandú' } },
    });
    const brand = (await api.get(`/v1/projects/${site}/brand`)).body;
    expect(brand).toEqual(patched.body);
    expect(brand.footer).toEqual({ text: { es: '© Ñandú', en: '' }, links: [] });
    expect((await fetchFile(emulator, brand.logo.url)).bytes).toEqual(svg);
    expect((await fetchFile(emulator, brand.favicon.url)).bytes).toEqual(fixture('favicon.ico'));
    expect((await api.delete(`/v1/projects/${site}/brand/favicon`)).body.favicon).toBeNull();
    expect((await api.delete(`/v1/projects/${site}`)).status).toBe(200);
    expect((await fetchFile(emulator, brand.logo.url)).status).toBe(404);
  });

  it('counts usage the same way', async () => {
    const api = await newApi();
    await api.post('/v1/agents', { name: 'A', identity: { businessName: 'B' } });
    const site = (await api.post('/v1/projects', { name: 'Store usage' })).body.id;
    await api.post(`/v1/projects/${site}/pages`, { name: 'Doc', kind: 'document', path: '/doc' });
    const usage = (await api.get('/v1/usage')).body;
    expect(usage.counts).toEqual({ projects: 1, agents: 1, pages: 1, knowledgeDocuments: 0, customDomains: 0, seats: 1 });
    expect(usage.activity).toEqual({ today: 4, cap: null });
  });

  it('exports bytes as base64 and imports them back to the same state', async () => {
    const api = await newApi();
    await api.post('/v1/assets', form(fixture('image.gif'), 'g.gif'));
    const first = JSON.stringify(await emulator.exportState());
    await emulator.importState(JSON.parse(first));
    expect(JSON.stringify(await emulator.exportState())).toBe(first);
    const listed = (await api.get('/v1/assets')).body.data[0];
    expect((await fetchFile(emulator, listed.url)).bytes).toEqual(fixture('image.gif'));
  });
}
