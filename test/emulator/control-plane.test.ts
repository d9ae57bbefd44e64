import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEmulator, SEED_EPOCH } from '../../emulator/emulator.js';
import { EmulatedClock } from '../../src/platform/clock.js';
import { WORKSPACE_NUMBER_MAX } from '../../src/workspaces/workspaces.schema.js';
import { client, send } from '../support/client.js';
import { fileEmulator, quiet, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';

const emulator = await fileEmulator({ seed: 9, fixtures: 'demo' });
const control = client(emulator);
const DEMO_KEY = 'svc_test_DemoFullAccessKey000000000000001_0k1rIW';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * The id state an import (or reset) leaves in a process that has drawn further than the
 * document: its own, where it stood, so that no id or key secret it handed out comes
 * again (CONTRACT: never reused, D-1170); processes sharing a store keep their own
 * streams anyway (D-208). A fresh emulator takes the document's (tested below).
 */
const idsAfterImport = (_documented: unknown, drawn: unknown) => drawn;

describe('control plane', () => {
  it('health answers ok and the version', async () => {
    const res = await control.get('/_emulator/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', version: '0.1.0' });
  });

  it('docs/control-plane.md lists every operation of the control plane its OpenAPI description declares, and no other', async () => {
    const doc = (await control.get('/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const declared = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/_emulator/'))
      .flatMap(([path, item]) =>
        Object.keys(item).flatMap((m) => (METHODS.includes(m.toUpperCase()) ? [`${m.toUpperCase()} ${path.replaceAll('{workspaceId}', '{id}')}`] : [])),
      );
    // The table's first cell: its methods, then the path (`GET` / `PATCH /_emulator/workspaces/{id}`).
    const listed = readFileSync(new URL('../../docs/control-plane.md', import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => {
        const cell = line.split(' | ')[0]!;
        const path = cell.match(/\/_emulator\/[^\s`?]*/)?.[0];
        return path ? (cell.match(/\b(GET|POST|PUT|PATCH|DELETE)\b/g) ?? []).map((m) => `${m} ${path}`) : [];
      });
    expect(new Set(listed)).toEqual(new Set(declared));
  });

  it('creates isolated workspaces with one key, all scopes by default', async () => {
    const res = await control.post('/_emulator/workspaces', { name: 'Mine', scopes: ['landings:read'] });
    expect(res.status).toBe(201);
    expect(res.body.workspaceId).toMatch(/^ws_/);
    expect(res.body.apiKey).toMatchObject({ scopes: ['landings:read'], prefix: res.body.apiKey.secret.slice(0, 12) });
    const me = await client(emulator, res.body.apiKey.secret).get('/v1/me');
    expect(me.body).toEqual({ workspaceId: res.body.workspaceId, scopes: ['landings:read'] });
    const all = await control.post('/_emulator/workspaces');
    expect(all.body.apiKey.scopes).toHaveLength(13);
    const bad = await control.post('/_emulator/workspaces', { scopes: [] });
    expect(bad.status).toBe(400);
  });

  it('patches workspace settings partially and refuses unknown or bad fields', async () => {
    const { workspaceId } = await workspace(emulator);
    const res = await control.patch(`/_emulator/workspaces/${workspaceId}`, { caps: { agents: 2 }, credits: 5 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ rateLimit: { limit: 600, windowSeconds: 60 }, dailyActivityCap: null, credits: 5 });
    expect(res.body.caps).toEqual({ projects: null, agents: 2, pages: null, knowledgeDocuments: null, customDomains: null, seats: null });
    for (const body of [{ rateLimit: { limit: 0 } }, { caps: { widgets: 1 } }, { credits: -1 }, { colour: 'red' }]) {
      const r = await control.patch(`/_emulator/workspaces/${workspaceId}`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    expect((await control.patch('/_emulator/workspaces/ws_nope', { credits: 1 })).status).toBe(404);
  });

  it('keeps every workspace number a state document can carry back, so a snapshot always restores', async () => {
    const { workspaceId } = await workspace(emulator);
    const huge = [
      ['rateLimit.limit', { rateLimit: { limit: 1e300 } }],
      ['dailyActivityCap', { dailyActivityCap: 1e300 }],
      ['credits', { credits: WORKSPACE_NUMBER_MAX + 1 }],
      ['caps.agents', { caps: { agents: 1e300 } }],
    ] as const;
    for (const [field, body] of huge) {
      const r = await control.patch(`/_emulator/workspaces/${workspaceId}`, body);
      expect(r.status, field).toBe(400);
      expect(r.body.errors[0].field, field).toBe(field);
    }
    expect((await control.post('/_emulator/workspaces', { credits: 1e300 })).status).toBe(400);
    await expect(emulator.createWorkspace({ credits: 1e300 })).rejects.toMatchObject({ status: 400, code: 'svc.request.validation_failed' });
    await expect(emulator.createWorkspace({ scopes: [] })).rejects.toMatchObject({ status: 400, code: 'svc.request.validation_failed' });
    // The largest numbers allowed are kept exactly and come back through an export.
    const largest = { rateLimit: { limit: WORKSPACE_NUMBER_MAX }, dailyActivityCap: WORKSPACE_NUMBER_MAX, credits: WORKSPACE_NUMBER_MAX };
    expect((await control.patch(`/_emulator/workspaces/${workspaceId}`, largest)).body).toMatchObject(largest);
    const snapshot = (await control.get('/_emulator/state')).body;
    expect((await control.put('/_emulator/state', snapshot)).body).toEqual({ imported: true });
    expect((await control.get(`/_emulator/workspaces/${workspaceId}`)).body).toMatchObject(largest);
  });

  it('takes bodies up to 64 MiB on every route, as CONTRACT says of the control plane (D-1107)', async () => {
    // 1.5 MiB, past the API's 1 MiB: judged by its fields, not refused for its size.
    for (const path of ['/_emulator/workspaces', '/_emulator/faults', '/_emulator/clock']) {
      const res = await control.post(path, { name: 'x'.repeat(1.5 * 1024 * 1024) });
      expect([res.status, res.body.code], path).toEqual([400, 'svc.request.validation_failed']);
    }
    const over = await send(emulator, 'POST', '/_emulator/faults', {
      body: 'x',
      headers: { 'content-type': 'application/json', 'content-length': String(64 * 1024 * 1024 + 1) },
    });
    expect(over.status).toBe(413);
  });

  it('the agents cap refuses with 402 naming the field', async () => {
    const ws = await workspace(emulator);
    await control.patch(`/_emulator/workspaces/${ws.workspaceId}`, { caps: { agents: 1 } });
    expect((await ws.api.post('/v1/agents', { name: 'A', identity: { businessName: 'B' } })).status).toBe(201);
    const refused = await ws.api.post('/v1/agents', { name: 'A', identity: { businessName: 'B' } });
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('svc.billing.limit_reached');
    expect(refused.body.errors[0].field).toBe('agents');
  });

  it('deleting a workspace drops it and everything in it', async () => {
    const ws = await workspace(emulator);
    await ws.api.post('/v1/agents', { name: 'A', identity: { businessName: 'B' } });
    const res = await control.delete(`/_emulator/workspaces/${ws.workspaceId}`);
    expect(res.body).toEqual({ workspaceId: ws.workspaceId, deleted: true });
    expect((await ws.api.get('/v1/me')).status).toBe(401);
    const state = (await control.get('/_emulator/state')).body;
    expect(JSON.stringify(state)).not.toContain(ws.workspaceId);
  });

  it('the clock reads, advances, jumps forward and never goes back', async () => {
    const t0 = (await control.get('/_emulator/clock')).body;
    expect(t0.frozen).toBe(true);
    const t1 = await control.post('/_emulator/clock', { advanceMs: 1500 });
    expect(Date.parse(t1.body.now) - Date.parse(t0.now)).toBe(1500);
    const target = new Date(Date.parse(t1.body.now) + 60_000).toISOString();
    expect((await control.post('/_emulator/clock', { now: target })).body.now).toBe(target);
    const back = await control.post('/_emulator/clock', { now: t0.now });
    expect(back.status).toBe(400);
    expect(back.body.errors[0].field).toBe('now');
    expect((await control.post('/_emulator/clock', { advanceMs: -1 })).status).toBe(400);
    expect((await control.get('/_emulator/clock')).body.now).toBe(target);
  });

  it('the clock stops at the year 9000: a move past it is refused and moves nothing', async () => {
    const before = (await control.get('/_emulator/clock')).body.now;
    for (const body of [{ advanceMs: 1e300 }, { advanceMs: 300_000_000_000_000 }, { now: '9500-01-01T00:00:00.000Z' }]) {
      const r = await control.post('/_emulator/clock', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toBe('svc.request.validation_failed');
      expect(r.body.errors[0].field).toBe(Object.keys(body)[0]);
      expect((await control.get('/_emulator/clock')).body.now).toBe(before);
    }
    await expect(emulator.clock.advance(1e300)).rejects.toMatchObject({ status: 400 });
    expect((await client(emulator, DEMO_KEY).get('/v1/me')).status).toBe(200);
    // A state exported now imports again.
    expect((await control.put('/_emulator/state', (await control.get('/_emulator/state')).body)).status).toBe(200);
    // The year 9000 itself is reachable; past it, nothing.
    expect((await control.post('/_emulator/clock', { now: '9000-01-01T00:00:00.000Z' })).body.now).toBe('9000-01-01T00:00:00.000Z');
    expect((await control.post('/_emulator/clock', { advanceMs: 1 })).status).toBe(400);
    expect((await control.get('/_emulator/state')).status).toBe(200);
    expect((await control.post('/_emulator/reset')).status).toBe(200);
  });

  it('the clock moves by whole milliseconds: a fraction is refused by the control plane and the library alike, and moves nothing (D-1092)', async () => {
    const before = (await control.get('/_emulator/clock')).body.now;
    const refused = await control.post('/_emulator/clock', { advanceMs: 1.5 });
    expect([refused.status, refused.body.code]).toEqual([400, 'svc.request.validation_failed']);
    expect(refused.body.errors).toEqual([{ field: 'advanceMs', reason: 'must be whole milliseconds' }]);
    // A date-time whose fraction goes past the millisecond is refused, not cut to it (D-1092).
    const later = new Date(Date.parse(before) + 3_000).toISOString();
    for (const now of [later.replace(/Z$/, '9Z'), later.replace(/\.(\d{3})Z$/, '.$10001Z')]) {
      const finer = await control.post('/_emulator/clock', { now });
      expect([finer.status, finer.body.errors], now).toEqual([400, [{ field: 'now', reason: 'must be whole milliseconds' }]]);
    }
    const moves: ['advanceMs' | 'now', () => Promise<unknown>][] = [
      ['advanceMs', () => emulator.clock.advance(1.5)],
      ['advanceMs', () => emulator.clock.advance(0.5)],
      ['now', () => emulator.clock.set(emulator.clock.now() + 0.5)],
      ['now', () => emulator.clock.set(emulator.clock.now() + 60_000.25)],
      ['now', () => emulator.clock.set(new Date(emulator.clock.now() + 60_000).toISOString().replace(/Z$/, '5Z'))],
    ];
    for (const [field, move] of moves) {
      await expect(move(), field).rejects.toMatchObject({
        status: 400,
        code: 'svc.request.validation_failed',
        errors: [{ field, reason: 'must be whole milliseconds' }],
      });
    }
    expect((await control.get('/_emulator/clock')).body.now).toBe(before);
    expect(Number.isInteger(emulator.clock.now())).toBe(true);
    // Zeros past the millisecond are the same instant: taken.
    const exact = await control.post('/_emulator/clock', { now: later.replace(/Z$/, '000Z') });
    expect([exact.status, exact.body.now]).toEqual([200, later]);
    // So ids keep their shape, and the emulator's own export imports again.
    const ws = await workspace(emulator);
    expect((await ws.api.post('/v1/agents', { name: 'A', identity: { businessName: 'B' } })).body.id).toMatch(/^agt_[0-9a-z]{26}$/);
    expect((await control.put('/_emulator/state', (await control.get('/_emulator/state')).body)).status).toBe(200);
    // The clock itself takes whole milliseconds only (the service library's callers build one).
    expect(() => new EmulatedClock({ frozenAt: SEED_EPOCH + 0.5 })).toThrow(RangeError);
    expect(() => new EmulatedClock({ offsetMs: 0.5 })).toThrow(RangeError);
    const clock = new EmulatedClock({ frozenAt: SEED_EPOCH });
    expect(() => clock.advance(0.5)).toThrow(RangeError);
    expect(() => clock.set(SEED_EPOCH + 1.5)).toThrow(RangeError);
    expect(clock.now()).toBe(SEED_EPOCH);
  });

  it('reports the process memory (after a full GC when node runs with --expose-gc)', async () => {
    const res = await control.get('/_emulator/memory');
    expect(res.status).toBe(200);
    expect(res.body.heapUsed).toBeGreaterThan(0);
    expect(res.body.rss).toBeGreaterThanOrEqual(res.body.heapUsed);
    expect(typeof res.body.collected).toBe('boolean');
  });

  it('queue drain answers how many jobs ran', async () => {
    // The demo's re-crawl the move to the year 9000 above ran is this drain's to count (D-1094).
    const res = await control.post('/_emulator/queue/drain');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ran: 1 });
    expect((await control.post('/_emulator/queue/drain')).body).toEqual({ ran: 0 });
  });

  it('queue drain counts the jobs finished since the last drain, also one the background finished first', async () => {
    const ws = await workspace(emulator);
    await control.post('/_emulator/queue/drain');
    const id = (await ws.api.post('/v1/knowledge/text', { title: 'Gift cards', text: 'Gift cards never expire.' })).body.id as string;
    // The queue runs jobs as they come: wait, without draining, until this one is done.
    for (let i = 0; i < 500 && (await ws.api.get(`/v1/knowledge/sources/${id}`)).body.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await ws.api.get(`/v1/knowledge/sources/${id}`)).body.status).toBe('ready');
    // Two jobs: the source's ingestion, and the lexicon job its settling scheduled (D-790).
    expect((await control.post('/_emulator/queue/drain')).body).toEqual({ ran: 2 });
    expect((await control.post('/_emulator/queue/drain')).body).toEqual({ ran: 0 });
  });

  it('a clock move runs what came due before it answers, and the next drain still counts those jobs (D-1094)', async () => {
    const own = await createEmulator({ seed: 9, log: quiet });
    try {
      const ws = await workspace(own);
      const ownControl = client(own);
      // Two jobs per text source: its ingestion and the lexicon job its settling schedules (D-790).
      await ws.api.post('/v1/knowledge/text', { title: 'Returns', text: 'Returns are free within 30 days.' });
      await own.clock.advance(1);
      expect((await ws.api.get('/v1/knowledge/sources')).body.data[0].status).toBe('ready');
      expect(await own.drain()).toBe(2);
      expect(await own.drain()).toBe(0);
      // Over the control plane, and across two moves: each move's jobs wait for the next drain.
      await ws.api.post('/v1/knowledge/text', { title: 'Hours', text: 'We open at nine.' });
      expect((await ownControl.post('/_emulator/clock', { advanceMs: 1 })).status).toBe(200);
      await ws.api.post('/v1/knowledge/text', { title: 'Shipping', text: 'We ship in 48 hours.' });
      expect((await ownControl.post('/_emulator/clock', { now: new Date(own.clock.now() + 60_000).toISOString() })).status).toBe(200);
      expect((await ownControl.post('/_emulator/queue/drain')).body).toEqual({ ran: 4 });
      expect((await ownControl.post('/_emulator/queue/drain')).body).toEqual({ ran: 0 });
      // A move with nothing due adds nothing.
      await own.clock.advance(1);
      expect(await own.drain()).toBe(0);
    } finally {
      await own.close();
    }
  });

  it('a restore starts every key with a fresh rate-limit window (D-1108)', async () => {
    const ws = await workspace(emulator);
    await control.patch(`/_emulator/workspaces/${ws.workspaceId}`, { rateLimit: { limit: 2, windowSeconds: 3600 } });
    await ws.api.get('/v1/me');
    await ws.api.get('/v1/me');
    expect((await ws.api.get('/v1/me')).status).toBe(429);
    const snapshot = (await control.get('/_emulator/state')).body;
    expect((await control.put('/_emulator/state', snapshot)).status).toBe(200);
    const after = await ws.api.get('/v1/me');
    expect([after.status, after.headers.get('x-ratelimit-remaining')]).toEqual([200, '1']);
  });

  it('state export and import round-trip to identical API answers', async () => {
    const ws = await workspace(emulator);
    await ws.api.post('/v1/agents', { name: 'Kept', identity: { businessName: 'B' } });
    const snapshot = (await control.get('/_emulator/state')).body;
    const before = (await ws.api.get('/v1/agents')).text;
    await ws.api.post('/v1/agents', { name: 'Lost', identity: { businessName: 'B' } });
    const drawn = (await control.get('/_emulator/state')).body.ids;
    expect((await control.put('/_emulator/state', snapshot)).body).toEqual({ imported: true });
    expect(JSON.stringify((await control.get('/_emulator/state')).body)).toBe(JSON.stringify({ ...snapshot, ids: idsAfterImport(snapshot.ids, drawn) }));
    expect((await ws.api.get('/v1/agents')).text).toBe(before);
    // Into a brand-new emulator with the same seed: the same answers there too.
    const other = await createEmulator({ seed: 9, log: quiet });
    try {
      expect((await client(other).put('/_emulator/state', snapshot)).status).toBe(200);
      expect((await client(other, ws.key).get('/v1/agents')).text).toBe(before);
    } finally {
      await other.close();
    }
  });

  it('refuses key hashes in the clear (only state files take those) and a newer state version, naming both versions', async () => {
    const ws = await workspace(emulator);
    const snapshot = (await control.get('/_emulator/state')).body;
    const { createHash } = await import('node:crypto');
    snapshot.tables.api_keys[0].hash = createHash('sha256').update(ws.key).digest('hex');
    const plain = await control.put('/_emulator/state', snapshot);
    expect(plain.status).toBe(400);
    expect(plain.body.errors[0].field).toBe('tables.api_keys.0.hash');
    const newer = await control.put('/_emulator/state', { ...snapshot, version: 2 });
    expect(newer.status).toBe(400);
    expect(newer.body.errors).toEqual([{ field: 'version', reason: 'state version 2 is newer than this emulator reads (version 1); upgrade svc-emulator' }]);
  });

  it('createEmulator({ state }) starts from a document whose hashes are in the clear; reset returns to it', async () => {
    const ws = await workspace(emulator);
    await ws.api.post('/v1/agents', { name: 'Carried', identity: { businessName: 'B' } });
    const file = JSON.parse(JSON.stringify(await emulator.exportState({ plainHashes: true })));
    const started = await createEmulator({ state: file, log: quiet });
    try {
      const api = client(started, ws.key);
      expect((await api.get('/v1/agents')).body.data.map((a: { name: string }) => a.name)).toEqual(['Carried']);
      await api.post('/v1/agents', { name: 'Later', identity: { businessName: 'B' } });
      await client(started).post('/_emulator/reset');
      expect((await api.get('/v1/agents')).body.data.map((a: { name: string }) => a.name)).toEqual(['Carried']);
    } finally {
      await started.close();
    }
  });

  it('never shows key hashes: they are sealed, and only an emulator with the same secret can import them', async () => {
    const ws = await workspace(emulator);
    const exported = (await control.get('/_emulator/state')).text;
    const { createHash } = await import('node:crypto');
    expect(exported).not.toContain(createHash('sha256').update(ws.key).digest('hex'));
    expect(exported).not.toContain(ws.key);
    const stranger = await createEmulator({ seed: 10, log: quiet });
    try {
      const res = await client(stranger).put('/_emulator/state', JSON.parse(exported));
      expect(res.status).toBe(400);
      expect(res.body.errors[0].field).toMatch(/^tables\.api_keys\.\d+\.hash$/);
    } finally {
      await stranger.close();
    }
  });

  it('a bad state document is refused and changes nothing', async () => {
    const before = JSON.stringify((await control.get('/_emulator/state')).body);
    for (const doc of [
      {},
      { format: 'svc-emulator-state', version: 1, clock: { frozen: true, value: 0 }, ids: { time: 0, random: '0', draws: 0 }, tables: { nope: [] } },
      {
        format: 'svc-emulator-state',
        version: 1,
        clock: { frozen: true, value: 0 },
        ids: { time: 0, random: '0', draws: 0 },
        tables: { agents: [{ id: 'agt_x' }] },
      },
    ]) {
      const res = await control.put('/_emulator/state', doc);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('svc.request.validation_failed');
    }
    expect(JSON.stringify((await control.get('/_emulator/state')).body)).toBe(before);
  });

  it('refuses a table or column named __proto__, prototype or constructor rather than passing over it', async () => {
    const before = JSON.stringify((await control.get('/_emulator/state')).body);
    const put = (text: string) =>
      emulator.fetch(new Request('http://localhost/_emulator/state', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: text }));
    const cases = [
      ['"tables":{', '"tables":{"__proto__":[],', 'tables.__proto__'],
      ['"tables":{', '"tables":{"constructor":[],', 'tables.constructor'],
      ['"format":', '"prototype":1,"format":', 'prototype'],
      ['"agents":[{', '"agents":[{"__proto__":{"name":"x"},', 'tables.agents.0.__proto__'],
      ['"agents":[{', '"agents":[{"constructor":"x",', 'tables.agents.0.constructor'],
    ] as const;
    for (const [at, with_, field] of cases) {
      expect(before).toContain(at);
      const res = await put(before.replace(at, with_));
      expect(res.status, field).toBe(400);
      const body = (await res.json()) as { code: string; errors: { field: string }[] };
      expect(body.code).toBe('svc.request.validation_failed');
      expect(body.errors[0]?.field).toBe(field);
    }
    expect(JSON.stringify((await control.get('/_emulator/state')).body)).toBe(before);
    expect((await put(before)).status).toBe(200);
  });

  it('reset returns to exactly the loaded fixtures', async () => {
    const fresh = await createEmulator({ seed: 9, fixtures: 'demo', log: quiet });
    const baseline = JSON.stringify(await fresh.exportState());
    await fresh.close();
    const ws = await workspace(emulator);
    await ws.api.post('/v1/agents', { name: 'Gone', identity: { businessName: 'B' } });
    const drawn = (await control.get('/_emulator/state')).body.ids;
    expect((await control.post('/_emulator/reset')).body).toEqual({ reset: true });
    const expected = JSON.parse(baseline);
    expect(JSON.stringify((await control.get('/_emulator/state')).body)).toBe(JSON.stringify({ ...expected, ids: idsAfterImport(expected.ids, drawn) }));
    expect((await ws.api.get('/v1/me')).status).toBe(401);
    expect((await client(emulator, DEMO_KEY).get('/v1/me')).status).toBe(200);
  });

  it('the journal keeps the last 1,000 requests, newest first, without secrets', async () => {
    const ws = await workspace(emulator);
    await ws.api.get('/v1/agents/agt_missing');
    await send(emulator, 'GET', `/v1/me?token=${ws.key}`, { headers: { authorization: `Bearer ${ws.key}` } });
    const res = await control.get('/_emulator/requests?limit=2');
    expect(res.body.data).toHaveLength(2);
    expect(res.body.data[0]).toMatchObject({
      method: 'GET',
      path: '/v1/me',
      status: 200,
      code: null,
      keyPrefix: ws.apiKey.prefix,
      workspaceId: ws.workspaceId,
    });
    expect(res.body.data[1]).toMatchObject({ path: '/v1/agents/agt_missing', status: 404, code: 'svc.agent.not_found' });
    expect(res.text).not.toContain(ws.key);
    for (let i = 0; i < 1005; i++) await send(emulator, 'GET', '/v1/me');
    const full = await control.get('/_emulator/requests?limit=1000');
    expect(full.body.data).toHaveLength(1000);
    expect(await emulator.journal.recent(5000)).toHaveLength(1000);
    expect((await control.get('/_emulator/requests?limit=1001')).status).toBe(400);
  });

  it("the journal tells console and hosted-site requests apart: the workspace a console path names, a site's host (D-1197)", async () => {
    const openapi = (await control.get('/v1/openapi.json')).body;
    const ws = await workspace(emulator);
    await send(emulator, 'GET', `/workspaces/${ws.workspaceId}/keys`);
    await send(emulator, 'DELETE', `/workspaces/${ws.workspaceId}/keys/key_missing`);
    await send(emulator, 'GET', '/workspaces/ws_nobody/keys');
    await send(emulator, 'GET', 'http://cafe-aurora.localhost/menu');
    await send(emulator, 'GET', '/menu', { headers: { host: 'Nobody-Here.localhost.:4010' } });
    await ws.api.get('/v1/me');
    const { data } = (await control.get('/_emulator/requests?limit=6')).body;
    expect(data.map((e: Record<string, unknown>) => [e.method, e.host, e.path, e.status, e.workspaceId])).toEqual([
      ['GET', null, '/v1/me', 200, ws.workspaceId],
      ['GET', 'nobody-here.localhost', '/menu', 404, null],
      ['GET', 'cafe-aurora.localhost', '/menu', 200, null],
      ['GET', null, '/workspaces/ws_nobody/keys', 404, 'ws_nobody'],
      ['DELETE', null, `/workspaces/${ws.workspaceId}/keys/key_missing`, 404, ws.workspaceId],
      ['GET', null, `/workspaces/${ws.workspaceId}/keys`, 200, ws.workspaceId],
    ]);
    expectMatchesOpenApi(openapi, 'GET', '/_emulator/requests', 200, { data });
    expect(await emulator.requests(6)).toEqual(data);
  });
});
