import { describe, expect, it } from 'vitest';
import { send } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';
import { fixture, form, siteWithPage, upload } from './support.js';

const emulator = await fileEmulator({ seed: 61 });
const doc = (await send(emulator, 'GET', '/v1/openapi.json')).body;
const count = async (api: Awaited<ReturnType<typeof workspace>>['api']) => (await api.get('/v1/assets?limit=100')).body.data.length;

describe('POST /v1/assets judges the bytes', () => {
  it.each([
    ['image.png', 'image/png', 48, 32],
    ['image.jpg', 'image/jpeg', 40, 30],
    ['image.gif', 'image/gif', 24, 20],
    ['image.webp', 'image/webp', 36, 28],
    ['image.avif', 'image/avif', 32, 24],
  ])('accepts %s as %s of %ix%i', async (name, contentType, width, height) => {
    const { api } = await workspace(emulator);
    const res = await upload(api, name);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^ast_[0-9a-z]{26}$/),
      kind: 'image',
      contentType,
      byteSize: fixture(name).byteLength,
      width,
      height,
      url: expect.stringMatching(new RegExp(`^http://localhost/files/${res.body.id}\\?expires=\\d+&signature=[A-Za-z0-9_-]{43}$`)),
      urlExpiresAt: '2026-01-01T00:15:00.000Z',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expectMatchesOpenApi(doc, 'POST', '/v1/assets', 201, res.body);
  });

  it('never believes the file name or the declared type', async () => {
    const { api } = await workspace(emulator);
    const res = await api.post('/v1/assets', form(fixture('image.png'), 'holiday.jpg', {}, 'image/jpeg'));
    expect(res.status).toBe(201);
    expect(res.body.contentType).toBe('image/png');
    const text = await api.post('/v1/assets', form(fixture('not-an-image.png'), 'photo.png', {}, 'image/png'));
    expect(text.status).toBe(415);
    expect(text.body.code).toBe('svc.asset.format_unsupported');
  });

  it.each([
    ['video-2s.mp4', 'video/mp4', 2],
    ['video-2s.webm', 'video/webm', 2],
    // Picture 3 s, sound 1 s: the length is the picture's.
    ['video-audio-3s.mp4', 'video/mp4', 3],
    // Recorded live (MediaRecorder style): no duration in the header; the length is read from the frames.
    ['video-live-3s.webm', 'video/webm', 3],
    ['video-60s.mp4', 'video/mp4', 60],
    ['video-60s.webm', 'video/webm', 60],
  ])('accepts the video %s (%s, %i s)', async (name, contentType, seconds) => {
    const { api } = await workspace(emulator);
    const res = await upload(api, name);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'video', contentType, durationSeconds: seconds, width: 32, height: 24, byteSize: fixture(name).byteLength });
    expectMatchesOpenApi(doc, 'POST', '/v1/assets', 201, res.body);
  });

  it.each(['video-61s.mp4', 'video-61s.webm'])('refuses %s, over 60 seconds, with 422 and stores nothing', async (name) => {
    const { api } = await workspace(emulator);
    const res = await upload(api, name);
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body.code).toBe('svc.asset.video_too_long');
    expect(res.body.errors).toEqual([{ field: 'file', reason: 'longer than 60 seconds', durationSeconds: 61 }]);
    expect(await count(api)).toBe(0);
  });

  // `bytes` with `values` written at `at` (image.gif: its screen's width and height at 6, its frame's at 813).
  const patched = (bytes: Uint8Array, at: number, values: number[]) => {
    const copy = Uint8Array.from(bytes);
    copy.set(values, at);
    return copy;
  };
  const NOT_MEDIA = 'not a PNG, JPEG, WebP, GIF or AVIF image, nor an MP4 or WebM video';
  it.each([
    ['text named .png', fixture('not-an-image.png'), NOT_MEDIA],
    ['PNG cut off in its image data', fixture('truncated.png'), 'image size unreadable'],
    ['PNG cut off in its header', fixture('image.png').slice(0, 20), 'image size unreadable'],
    ['audio-only MP4 (m4a)', fixture('audio-2s.m4a'), NOT_MEDIA],
    ['MP4 cut off before its movie header ends', fixture('video-2s.mp4').slice(0, 800), 'no readable video track'],
    ['WebM cut off in its first cluster', fixture('video-2s.webm').slice(0, 300), 'no readable video track'],
    ['ICO icon', fixture('favicon.ico'), NOT_MEDIA],
    ['SVG', new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'), NOT_MEDIA],
    ['PDF', new TextEncoder().encode('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n'), NOT_MEDIA],
    ['empty file', new Uint8Array(0), NOT_MEDIA],
    ['GIF of 0 × 0 pixels', patched(fixture('image.gif'), 6, [0, 0, 0, 0]), 'image size unreadable'],
    ['GIF whose frame has no pixels', patched(fixture('image.gif'), 813, [0, 0, 0, 0]), 'a GIF frame has no pixels'],
  ])('refuses %s with 415 svc.asset.format_unsupported and stores nothing', async (_label, bytes, reason) => {
    const { api } = await workspace(emulator);
    const res = await upload(api, bytes);
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('svc.asset.format_unsupported');
    expect(res.body.errors).toEqual([{ field: 'file', reason }]);
    expect(await count(api)).toBe(0);
  });
});

describe('POST /v1/assets validates its fields first', () => {
  it.each([
    [
      'no file',
      () => {
        const f = new FormData();
        f.set('key', 'hero');
        return f;
      },
      'file',
      'required',
    ],
    [
      'file sent as text',
      () => {
        const f = new FormData();
        f.set('file', 'iVBORw0KGgo=');
        return f;
      },
      'file',
      'must be a file',
    ],
    ['unknown field', () => form(fixture('image.png'), 'a.png', { caption: 'x' }), 'caption', 'unknown field'],
    ['key with a space', () => form(fixture('image.png'), 'a.png', { key: 'hero image' }), 'key', expect.stringContaining('1 to 64')],
    ['key of 65 characters', () => form(fixture('image.png'), 'a.png', { key: 'k'.repeat(65) }), 'key', expect.stringContaining('1 to 64')],
    ['empty key', () => form(fixture('image.png'), 'a.png', { key: '' }), 'key', expect.stringContaining('1 to 64')],
    ['alt of 501 characters', () => form(fixture('image.png'), 'a.png', { alt: 'a'.repeat(501) }), 'alt', 'must be at most 500 characters'],
    [
      'two files (which one was meant cannot be told, D-1097)',
      () => {
        const f = form(fixture('image.png'), 'a.png');
        f.append('file', new File([fixture('image.gif')], 'b.gif'));
        return f;
      },
      'file',
      'sent more than once',
    ],
    [
      'a key sent twice',
      () => {
        const f = form(fixture('image.png'), 'a.png', { key: 'hero' });
        f.append('key', 'logo');
        return f;
      },
      'key',
      'sent more than once',
    ],
  ])('%s is 400 svc.asset.invalid naming the field', async (_label, body, field, reason) => {
    const { api } = await workspace(emulator);
    const res = await api.post('/v1/assets', body());
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('svc.asset.invalid');
    expect(res.body.errors[0]).toEqual({ field, reason });
    expect(await count(api)).toBe(0);
  });

  it('takes a key of 64 characters and an alt of 500', async () => {
    const { api } = await workspace(emulator);
    const res = await upload(api, 'image.png', { key: `a${'b'.repeat(62)}.`, alt: 'a'.repeat(500) });
    expect(res.status).toBe(201);
    expect(res.body.key).toHaveLength(64);
    expect(res.body.alt).toHaveLength(500);
  });

  it('a JSON body is 400 svc.request.invalid', async () => {
    const { api } = await workspace(emulator);
    const res = await api.post('/v1/assets', { file: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('svc.request.invalid');
  });

  it('a text field that is not UTF-8 is 400 naming it; a U+FFFD sent as such is kept (D-1106)', async () => {
    const { api } = await workspace(emulator);
    const multipart = (alt: Uint8Array) => {
      const crlf = '\r\n';
      return Buffer.concat([
        Buffer.from(`--svc-test-boundary${crlf}Content-Disposition: form-data; name="alt"${crlf}${crlf}Logo `),
        alt,
        Buffer.from(
          `${crlf}--svc-test-boundary${crlf}Content-Disposition: form-data; name="file"; filename="a.png"${crlf}Content-Type: image/png${crlf}${crlf}`,
        ),
        fixture('image.png'),
        Buffer.from(`${crlf}--svc-test-boundary--${crlf}`),
      ]);
    };
    const type = { 'content-type': 'multipart/form-data; boundary=svc-test-boundary' };
    const garbled = await api.post('/v1/assets', multipart(new Uint8Array([0xff, 0xfe])), type);
    expect([garbled.status, garbled.body.code]).toEqual([400, 'svc.asset.invalid']);
    expect(garbled.body.errors).toEqual([{ field: 'alt', reason: 'must be UTF-8 text' }]);
    expect(await count(api)).toBe(0);
    const kept = await api.post('/v1/assets', multipart(Buffer.from('\uFFFD', 'utf8')), type);
    expect([kept.status, kept.body.alt]).toEqual([201, 'Logo \uFFFD']);
  });

  it('an empty body, whatever its Content-Type, is no body: 400 svc.asset.invalid naming (body) (D-1079)', async () => {
    const { api } = await workspace(emulator);
    for (const type of ['multipart/form-data; boundary=x', 'application/json', 'text/plain']) {
      const res = await api.post('/v1/assets', '', { 'content-type': type });
      expect([res.status, res.body.code], type).toEqual([400, 'svc.asset.invalid']);
      expect(res.body.errors).toEqual([{ field: '(body)', reason: 'must be an object' }]);
    }
    expect(await count(api)).toBe(0);
  });

  it('an upload over 20 MiB is 413 and stores nothing; a large one under it is judged', async () => {
    const { api } = await workspace(emulator);
    const over = await upload(api, new Uint8Array(20 * 1024 * 1024 + 1));
    expect(over.status).toBe(413);
    expect(over.body.code).toBe('svc.request.payload_too_large');
    const under = await upload(api, new Uint8Array(19 * 1024 * 1024));
    expect(under.status).toBe(415);
    expect(await count(api)).toBe(0);
  });

  it('needs assets:write; assets:read cannot upload', async () => {
    const { api } = await workspace(emulator, { scopes: ['assets:read'] });
    const res = await upload(api, 'image.png');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('svc.api_key.scope_missing');
  });
});

describe('keys and pages', () => {
  it('a key is unique per page: 409 svc.asset.id_taken on the same page, free on another', async () => {
    const { api } = await workspace(emulator);
    const a = await siteWithPage(api, 'keys-a');
    const b = await siteWithPage(api, 'keys-b');
    const first = await upload(api, 'image.png', { key: 'hero', pageId: a.pageId, alt: 'Our shop' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ key: 'hero', pageId: a.pageId, alt: 'Our shop' });
    const clash = await upload(api, 'image.jpg', { key: 'hero', pageId: a.pageId });
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe('svc.asset.id_taken');
    expect(clash.body.errors).toEqual([{ field: 'key', reason: 'taken', assetId: first.body.id }]);
    expect((await upload(api, 'image.jpg', { key: 'hero', pageId: b.pageId })).status).toBe(201);
    expect((await upload(api, 'image.jpg', { key: 'Hero', pageId: a.pageId })).status).toBe(201);
    expect((await upload(api, 'image.jpg', { key: 'hero' })).status).toBe(201);
    expect((await upload(api, 'image.gif', { key: 'hero' })).status).toBe(409);
    expect(await count(api)).toBe(4);
    await api.delete(`/v1/assets/${first.body.id}`);
    expect((await upload(api, 'image.jpg', { key: 'hero', pageId: a.pageId })).status).toBe(201);
  });

  it('a page of another workspace, or none, is 404 svc.page.not_found', async () => {
    const owner = await workspace(emulator);
    const { pageId } = await siteWithPage(owner.api, 'foreign');
    const { api } = await workspace(emulator);
    for (const id of [pageId, 'pg_missing']) {
      const res = await upload(api, 'image.png', { pageId: id });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('svc.page.not_found');
    }
    expect(await count(api)).toBe(0);
  });

  it('images survive the deletion of their page and site', async () => {
    const { api } = await workspace(emulator);
    const { projectId, pageId } = await siteWithPage(api, 'survive');
    const asset = (await upload(api, 'image.png', { key: 'logo', pageId })).body;
    expect((await api.delete(`/v1/projects/${projectId}`)).status).toBe(200);
    const kept = await api.get(`/v1/assets/${asset.id}`);
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ key: 'logo', pageId });
  });
});

describe('Idempotency-Key on uploads', () => {
  it('replays the first upload and stores one asset; other bytes under the same key are 422', async () => {
    const { api } = await workspace(emulator);
    const first = await upload(api, 'image.png', {}, { 'idempotency-key': 'up-1' });
    const again = await upload(api, 'image.png', {}, { 'idempotency-key': 'up-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const other = await upload(api, 'image.jpg', {}, { 'idempotency-key': 'up-1' });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('svc.idempotency.conflict');
    expect(await count(api)).toBe(1);
  });
});
