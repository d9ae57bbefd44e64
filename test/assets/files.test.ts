import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { client } from '../support/client.js';
import { reopenableStore } from '../support/store.js';
import { fileEmulator, quiet, workspace } from '../support/emulator.js';
import { fetchFile, fixture, upload } from './support.js';

const emulator = await fileEmulator({ seed: 62 });
const MINUTE = 60_000;

function tamper(url: string, param: 'expires' | 'signature', change: (value: string) => string): string {
  const u = new URL(url);
  u.searchParams.set(param, change(u.searchParams.get(param)!));
  return u.toString();
}

describe('GET /files/{assetId}', () => {
  it('serves the exact bytes with their type and caching headers, no API key', async () => {
    const { api } = await workspace(emulator);
    const asset = (await upload(api, 'image.webp')).body;
    const res = await fetchFile(emulator, asset.url);
    expect(res.status).toBe(200);
    expect(res.bytes).toEqual(fixture('image.webp'));
    expect(res.headers.get('content-type')).toBe('image/webp');
    expect(res.headers.get('content-length')).toBe(String(asset.byteSize));
    expect(res.headers.get('cache-control')).toBe('public, max-age=900, immutable');
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);
    expect(res.headers.get('last-modified')).toBe('Thu, 01 Jan 2026 00:00:00 GMT');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain('sandbox');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('answers 304 to a matching If-None-Match, and HEAD without a body', async () => {
    const { api } = await workspace(emulator);
    const asset = (await upload(api, 'video-2s.webm')).body;
    const first = await fetchFile(emulator, asset.url);
    const etag = first.headers.get('etag')!;
    const cached = await fetchFile(emulator, asset.url, { headers: { 'if-none-match': `W/"nope", ${etag}` } });
    expect(cached.status).toBe(304);
    expect(cached.bytes.byteLength).toBe(0);
    expect(cached.headers.get('etag')).toBe(etag);
    expect((await fetchFile(emulator, asset.url, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
    const head = await fetchFile(emulator, asset.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('video/webm');
    expect(head.bytes.byteLength).toBe(0);
  });

  it('works for 15 minutes of emulated time, then is 403 svc.auth.forbidden; a fresh URL works again', async () => {
    const { api } = await workspace(emulator);
    const asset = (await upload(api, 'image.png')).body;
    const issuedAt = emulator.clock.now();
    expect(Date.parse(asset.urlExpiresAt) - issuedAt).toBe(15 * MINUTE);
    await emulator.clock.advance(15 * MINUTE - 1000);
    const late = await fetchFile(emulator, asset.url);
    expect(late.status).toBe(200);
    expect(late.headers.get('cache-control')).toBe('public, max-age=1, immutable');
    await emulator.clock.advance(1000);
    const expired = await fetchFile(emulator, asset.url);
    expect(expired.status).toBe(403);
    expect(expired.headers.get('content-type')).toBe('application/problem+json');
    expect(expired.body).toMatchObject({ code: 'svc.auth.forbidden', status: 403, instance: `/files/${asset.id}` });
    const fresh = (await api.get(`/v1/assets/${asset.id}`)).body;
    expect(fresh.url).not.toBe(asset.url);
    expect(Date.parse(fresh.urlExpiresAt) - emulator.clock.now()).toBe(15 * MINUTE);
    expect((await fetchFile(emulator, fresh.url)).bytes).toEqual(fixture('image.png'));
  });

  it('a tampered, borrowed or incomplete URL is 403 svc.auth.forbidden', async () => {
    const { api } = await workspace(emulator);
    const a = (await upload(api, 'image.png')).body;
    const b = (await upload(api, 'image.gif')).body;
    const flip = (s: string) => (s.startsWith('A') ? 'B' : 'A') + s.slice(1);
    const bad = [
      tamper(a.url, 'signature', flip),
      tamper(a.url, 'signature', (s) => s.slice(0, -1)),
      tamper(a.url, 'expires', (e) => String(Number(e) + 3600)),
      tamper(a.url, 'expires', (e) => `${e}.0`),
      a.url.replace(a.id, b.id),
      a.url.split('?')[0]!,
      a.url.replace(/&signature=[^&]+/, ''),
      a.url.replace(/expires=\d+&/, ''),
    ];
    for (const url of bad) {
      const res = await fetchFile(emulator, url);
      expect(res.status, url).toBe(403);
      expect(res.body.code).toBe('svc.auth.forbidden');
    }
    expect((await fetchFile(emulator, a.url)).status).toBe(200);
  });

  it('a genuine URL to a deleted asset is 404 svc.asset.not_found', async () => {
    const { api } = await workspace(emulator);
    const asset = (await upload(api, 'image.png')).body;
    expect((await api.delete(`/v1/assets/${asset.id}`)).body).toEqual({ assetId: asset.id, deleted: true });
    const res = await fetchFile(emulator, asset.url);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('svc.asset.not_found');
  });

  it('signs with the origin the caller used', async () => {
    const { key } = await workspace(emulator);
    const body = new FormData();
    body.set('file', new File([fixture('image.png')], 'a.png'));
    const res = await emulator.fetch(new Request('http://assets.test:8123/v1/assets', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body }));
    const asset = (await res.json()) as { id: string; url: string };
    expect(asset.url.startsWith(`http://assets.test:8123/files/${asset.id}?`)).toBe(true);
  });
});

describe('bytes are kept by the store', () => {
  it('survive a restart on the same store, and the URL signed before still works', async () => {
    const path = reopenableStore();
    const first = await createEmulator({ db: path, seed: 3, log: quiet });
    const ws = await first.createWorkspace();
    const asset = (await upload(client(first, ws.apiKey.secret), 'video-2s.mp4')).body;
    await first.close();
    const second = await createEmulator({ db: path, seed: 3, log: quiet });
    try {
      expect((await fetchFile(second, asset.url)).bytes).toEqual(fixture('video-2s.mp4'));
      const again = await client(second, ws.apiKey.secret).get(`/v1/assets/${asset.id}`);
      expect(again.body).toMatchObject({ id: asset.id, kind: 'video', durationSeconds: 2 });
    } finally {
      await second.close();
    }
  });

  it('travel with a state export and come back with an import', async () => {
    const { api } = await workspace(emulator);
    const asset = (await upload(api, 'image.jpg')).body;
    const state = await emulator.exportState();
    const row = (state.tables.assets as Record<string, any>[]).find((r) => r.id === asset.id)!;
    expect(Buffer.from(row.bytes.$bytes, 'base64')).toEqual(Buffer.from(fixture('image.jpg')));
    await api.delete(`/v1/assets/${asset.id}`);
    await emulator.importState(JSON.parse(JSON.stringify(state)));
    const back = await api.get(`/v1/assets/${asset.id}`);
    expect(back.status).toBe(200);
    expect((await fetchFile(emulator, back.body.url)).bytes).toEqual(fixture('image.jpg'));
  });
});
