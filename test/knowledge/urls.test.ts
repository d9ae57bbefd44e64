import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { client, walk } from '../support/client.js';
import { fileEmulator, quiet, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';
import { html, openapi, putWeb, settled } from './support.js';

const emulator = await fileEmulator({ seed: 5 });
const doc = await openapi(emulator);
const index = emulator.service.knowledge.index;
const HOUR = 3_600_000;
const at = (ms: number) => new Date(ms).toISOString();
const page = (url: string, title: string, body: string, extra: object = {}) => ({
  url,
  headers: { 'content-type': 'text/html; charset=utf-8' },
  body: html(title, body),
  ...extra,
});

describe('URL sources: accepted', () => {
  it('202 pending with the URL as title and a default syncTtlMinutes of 1440, then ready from the offline web', async () => {
    const { api, control } = await workspace(emulator);
    await putWeb(control, {
      pages: [
        { url: 'http://cafe.example/', status: 301, headers: { location: 'https://cafe.example/horarios' } },
        page(
          'https://cafe.example/horarios',
          'Horarios | Café Luna',
          '<h1>Horarios</h1><p>Abrimos de lunes a viernes de 9 a 18 h. Las reservas se hacen por teléfono.</p>',
        ),
      ],
    });
    const res = await api.post('/v1/knowledge/urls', { url: 'http://cafe.example/#top', topics: ['hours'] });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      kind: 'url',
      status: 'pending',
      url: 'http://cafe.example/',
      title: 'http://cafe.example/',
      syncTtlMinutes: 1440,
      topics: ['hours'],
    });
    expect(res.body).not.toHaveProperty('resolvedUrl');
    expectMatchesOpenApi(doc, 'POST', '/v1/knowledge/urls', 202, res.body);
    const ready = await settled(emulator, api, res.body.id);
    expect(ready).toMatchObject({
      status: 'ready',
      title: 'Horarios | Café Luna',
      url: 'http://cafe.example/',
      resolvedUrl: 'https://cafe.example/horarios',
      contentType: 'text/html',
      lang: 'es',
      lastFetchedAt: '2026-01-01T00:00:00.000Z',
      nextSyncAt: '2026-01-02T00:00:00.000Z',
      chunkCount: 1,
    });
    expect(ready.byteSize).toBeGreaterThan(100);
    expect(ready.summary).toMatch(/^Web page "Horarios \| Café Luna" in Spanish covering .*bookings \(reservas\)/);
    expectMatchesOpenApi(doc, 'GET', '/v1/knowledge/sources/{sourceId}', 200, ready);
  });

  it('enforces the URL length (2048) and syncTtlMinutes (minimum 60) at their boundaries', async () => {
    const { api } = await workspace(emulator);
    const base = 'https://example.com/';
    const ok = [
      { url: base + 'a'.repeat(2048 - base.length) },
      // 2,048 characters once encoded (20 + 338 × 6), and a fragment, which is never stored.
      { url: `${base}${'é'.repeat(338)}#${'x'.repeat(100)}` },
      { url: base, syncTtlMinutes: 60 },
      { url: base, syncTtlMinutes: 61 },
    ];
    for (const body of ok) expect((await api.post('/v1/knowledge/urls', body)).status).toBe(202);
    const refused: [object, string][] = [
      [{ url: base + 'a'.repeat(2049 - base.length) }, 'url'],
      // Short as sent, 6,020 characters as stored and crawled ("é" is "%C3%A9").
      [{ url: base + 'é'.repeat(1000) }, 'url'],
      [{ url: base + 'é'.repeat(339) }, 'url'],
      [{ url: 'example.com/page' }, 'url'],
      [{ url: '' }, 'url'],
      [{ url: base, syncTtlMinutes: 59 }, 'syncTtlMinutes'],
      [{ url: base, syncTtlMinutes: 90.5 }, 'syncTtlMinutes'],
      [{ url: base, syncTtlMinutes: '120' }, 'syncTtlMinutes'],
      [{ url: base, topics: ['A B'] }, 'topics.0'],
    ];
    for (const [body, field] of refused) {
      const res = await api.post('/v1/knowledge/urls', body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.body.code).toBe('svc.knowledge.source_invalid');
      expect(res.body.errors[0].field).toBe(field);
    }
  });
});

describe('URL sources: refused at once', () => {
  it('answers 400 svc.knowledge.url_not_allowed for blocked literal addresses in any spelling, localhost, schemes, ports and credentials, writing nothing', async () => {
    const { api } = await workspace(emulator);
    const urls = [
      'http://127.0.0.1/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://0177.0.0.1/',
      'http://127.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:169.254.169.254]/',
      'http://169.254.169.254/latest/meta-data',
      'http://10.0.0.1/',
      'http://192.168.1.1:8080/',
      'http://100.64.0.1/',
      'http://[fd00::1]/',
      'http://224.0.0.1/',
      'http://0.0.0.0/',
      'http://[fe80::1]/',
      'http://localhost/',
      'http://localhost.:8080/',
      'http://app.localhost/',
      'ftp://example.com/',
      'file:///etc/passwd',
      'gopher://example.com/',
      'http://example.com:22/',
      'https://example.com:6443/',
      'http://user:pass@example.com/',
    ];
    for (const url of urls) {
      const res = await api.post('/v1/knowledge/urls', { url });
      expect(res.status, url).toBe(400);
      expect(res.body.code, url).toBe('svc.knowledge.url_not_allowed');
    }
    expect(await walk(api, '/v1/knowledge/sources')).toEqual([]);
  });
});

describe('URL sources: failures after acceptance', () => {
  it('fail with each fetch code of CONTRACT through the offline web, and raise no HTTP error', async () => {
    const { api, control } = await workspace(emulator);
    const hops = Array.from({ length: 6 }, (_, i) => ({
      url: `https://loop.example/${i}`,
      status: 302,
      headers: { location: `https://loop.example/${i + 1}` },
    }));
    await putWeb(control, {
      pages: [
        page('https://slow.example/', 'Slow', '<p>late</p>', { delayMs: 10_001 }),
        page('https://edge.example/', 'Edge', '<p>Just in time for the timeout.</p>', { delayMs: 10_000 }),
        { url: 'https://big.example/', headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(5 * 1024 * 1024 + 1) },
        { url: 'https://img.example/logo', headers: { 'content-type': 'image/png' }, bodyBase64: 'iVBORw0KGgo=' },
        { url: 'https://empty.example/', headers: { 'content-type': 'text/html' }, body: '<html><body><script>x()</script></body></html>' },
        { url: 'https://err.example/', status: 503, body: 'down' },
        ...hops,
        page('https://loop.example/6', 'End', '<p>end</p>'),
        { url: 'https://redirector.example/', status: 301, headers: { location: 'http://169.254.169.254/latest/meta-data' } },
      ],
      dns: { 'intranet.example': ['10.0.0.7'], 'meta.example': ['169.254.169.254'], 'mapped.example': ['::ffff:127.0.0.1'], 'v6.example': ['fe80::2'] },
    });
    const cases: [string, string][] = [
      ['https://unknown.example/', 'fetch_dns_failed'],
      ['https://intranet.example/', 'fetch_blocked_address:private'],
      ['https://meta.example/', 'fetch_blocked_address:link_local'],
      ['https://mapped.example/', 'fetch_blocked_address:loopback'],
      ['https://v6.example/', 'fetch_blocked_address:link_local'],
      ['https://redirector.example/', 'fetch_blocked_address:link_local'],
      ['https://slow.example/', 'fetch_timeout'],
      ['https://big.example/', 'fetch_response_too_large'],
      ['https://img.example/logo', 'unsupported_document'],
      ['https://empty.example/', 'unsupported_document'],
      ['https://err.example/', 'ingest_failed'],
      ['https://err.example/missing', 'ingest_failed'],
      ['https://loop.example/0', 'ingest_failed'],
    ];
    const ids = [];
    for (const [url] of cases) {
      const res = await api.post('/v1/knowledge/urls', { url });
      expect(res.status, url).toBe(202);
      ids.push(res.body.id);
    }
    const edge = (await api.post('/v1/knowledge/urls', { url: 'https://edge.example/' })).body.id;
    await emulator.drain();
    for (const [i, [url, error]] of cases.entries()) {
      const source = (await api.get(`/v1/knowledge/sources/${ids[i]}`)).body;
      expect(source, url).toMatchObject({ status: 'failed', error, chunkCount: 0 });
      expect(source).not.toHaveProperty('nextSyncAt');
    }
    expect((await api.get(`/v1/knowledge/sources/${edge}`)).body.status).toBe('ready');
  });
});

describe('URL sources: re-crawls', () => {
  it('crawl again when the emulated clock passes nextSyncAt: new content replaces the chunks, the same content only moves the times', async () => {
    const { api, control, workspaceId } = await workspace(emulator);
    const agentId = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id;
    const url = 'https://bikes.example/prices';
    await putWeb(control, { pages: [page(url, 'Prices', '<p>A city bike costs 15 euros per day.</p>')] });
    const t0 = emulator.clock.now();
    const id = (await api.post('/v1/knowledge/urls', { url, syncTtlMinutes: 60 })).body.id;
    const first = await settled(emulator, api, id);
    const v1 = await index.version(workspaceId, agentId);
    expect(await index.searchLexical(workspaceId, agentId, 'city bike', 5)).toHaveLength(1);

    // Same content: times move, knowledge does not.
    await control.post('/_emulator/clock', { advanceMs: HOUR });
    const same = (await api.get(`/v1/knowledge/sources/${id}`)).body;
    expect(same.lastFetchedAt).toBe(at(t0 + HOUR));
    expect(same.nextSyncAt).toBe(at(t0 + 2 * HOUR));
    expect(same.summary).toBe(first.summary);
    expect(await index.version(workspaceId, agentId)).toBe(v1);

    // Not yet due: nothing happens.
    await putWeb(control, { pages: [page(url, 'Prices 2026', '<p>An electric bike costs 35 euros per day.</p>')] });
    await control.post('/_emulator/clock', { advanceMs: HOUR - 1 });
    expect((await api.get(`/v1/knowledge/sources/${id}`)).body.title).toBe('Prices');

    // Due: the new page replaces the old chunks.
    await control.post('/_emulator/clock', { advanceMs: 1 });
    const changed = (await api.get(`/v1/knowledge/sources/${id}`)).body;
    expect(changed).toMatchObject({ status: 'ready', title: 'Prices 2026', lastFetchedAt: at(t0 + 2 * HOUR), nextSyncAt: at(t0 + 3 * HOUR) });
    expect(await index.searchLexical(workspaceId, agentId, 'city', 5)).toEqual([]);
    expect(await index.searchLexical(workspaceId, agentId, 'electric', 5)).toHaveLength(1);
    expect(await index.version(workspaceId, agentId)).not.toBe(v1);
  });

  it('a failed re-crawl keeps the source ready with its chunks and sets error, nextSyncAt = lastFetchedAt + ttl (D-1164); the next good crawl clears it', async () => {
    const { api, control, workspaceId } = await workspace(emulator);
    const url = 'https://kayaks.example/';
    await putWeb(control, { pages: [page(url, 'Kayaks', '<p>Kayaks are rented by the hour.</p>')] });
    const t0 = emulator.clock.now();
    const id = (await api.post('/v1/knowledge/urls', { url, syncTtlMinutes: 60 })).body.id;
    await settled(emulator, api, id);
    await putWeb(control, { pages: [] });
    await control.post('/_emulator/clock', { advanceMs: HOUR });
    const broken = (await api.get(`/v1/knowledge/sources/${id}`)).body;
    // The failed try at t0 + 1 h is the last fetch: the next is a ttl after it (CONTRACT).
    expect(broken).toMatchObject({ status: 'ready', error: 'fetch_dns_failed', chunkCount: 1, lastFetchedAt: at(t0 + HOUR), nextSyncAt: at(t0 + 2 * HOUR) });
    expect(await index.searchLexical(workspaceId, 'agt_any', 'kayaks', 5)).toHaveLength(1);
    await putWeb(control, { pages: [page(url, 'Kayaks', '<p>Kayaks are rented by the hour.</p>')] });
    await control.post('/_emulator/clock', { advanceMs: HOUR });
    const healed = (await api.get(`/v1/knowledge/sources/${id}`)).body;
    expect(healed).not.toHaveProperty('error');
    expect(healed.lastFetchedAt).toBe(at(t0 + 2 * HOUR));
  });

  it('stop for a deleted source', async () => {
    const { api, control } = await workspace(emulator);
    const url = 'https://gone.example/';
    await putWeb(control, { pages: [page(url, 'Gone', '<p>Soon gone.</p>')] });
    const id = (await api.post('/v1/knowledge/urls', { url, syncTtlMinutes: 60 })).body.id;
    await settled(emulator, api, id);
    await api.delete(`/v1/knowledge/sources/${id}`);
    await control.post('/_emulator/clock', { advanceMs: HOUR });
    expect((await api.get(`/v1/knowledge/sources/${id}`)).status).toBe(404);
  });
});

describe('the offline web', () => {
  it('is configuration: PUT replaces it, GET shows it, bad definitions are refused, reset and state import leave it', async () => {
    const { control } = await workspace(emulator);
    const web = {
      pages: [{ url: 'https://config-only.example/', status: 200, headers: {}, body: 'hi', delayMs: 0 }],
      dns: { 'dns-only.example': ['93.184.215.14'] },
    };
    const put = await control.put('/_emulator/web', web);
    expect(put.body).toEqual({ pages: 1, hosts: 2 });
    expect((await control.get('/_emulator/web')).body).toEqual(web);
    for (const bad of [
      { pages: [{ url: 'notaurl' }] },
      { pages: [], dns: { x: ['999.1.1.1'] } },
      { pages: [{ url: 'https://config-only.example/', delayMs: -5 }] },
      { dns: {} },
    ]) {
      const res = await control.put('/_emulator/web', bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.code).toBe('svc.request.validation_failed');
    }
    expect(JSON.stringify((await control.get('/_emulator/state')).body)).not.toContain('config-only.example');
    await control.put('/_emulator/state', (await control.get('/_emulator/state')).body);
    expect((await control.get('/_emulator/web')).body).toEqual(web);
  });
});

describe('URL sources with live fetching', () => {
  it('judge literal addresses at once and resolve names with the system resolver', async () => {
    const live = await createEmulator({ liveFetch: true, log: quiet });
    try {
      const ws = await live.createWorkspace();
      const api = client(live, ws.apiKey.secret);
      for (const url of ['http://127.0.0.1:8080/', 'http://[::1]/', 'http://localhost/', 'http://0x0a.0.0.1/']) {
        expect((await api.post('/v1/knowledge/urls', { url })).body.code, url).toBe('svc.knowledge.url_not_allowed');
      }
      const id = (await api.post('/v1/knowledge/urls', { url: 'https://no-such-host.invalid/' })).body.id;
      expect(await settled(live, api, id)).toMatchObject({ status: 'failed', error: 'fetch_dns_failed' });
    } finally {
      await live.close();
    }
  });
});
