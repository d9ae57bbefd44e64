import { beforeAll, describe, expect, it } from 'vitest';
import { fileEmulator, workspace } from '../support/emulator.js';
import { walk } from '../support/client.js';

const emulator = await fileEmulator({ seed: 11 });
let ws: Awaited<ReturnType<typeof workspace>>;
const created: string[] = [];

beforeAll(async () => {
  ws = await workspace(emulator);
  for (let i = 0; i < 7; i++) {
    created.push((await ws.api.post('/v1/agents', { name: `A${i}`, identity: { businessName: 'B' } })).body.id);
    if (i % 3 === 0) await emulator.clock.advance(1000);
  }
});

describe('cursor pagination', () => {
  it('lists newest first and walks forward with after until nextCursor is null', async () => {
    const newestFirst = [...created].reverse();
    const first = await ws.api.get('/v1/agents?limit=3');
    expect(first.body.data.map((a: { id: string }) => a.id)).toEqual(newestFirst.slice(0, 3));
    expect(first.body.hasMore).toBe(true);
    expect(typeof first.body.nextCursor).toBe('string');
    expect((await walk(ws.api, '/v1/agents', 3)).map((a) => a.id)).toEqual(newestFirst);
    const last = await ws.api.get(`/v1/agents?limit=7`);
    expect(last.body).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it('walks backwards with before, pages still newest first', async () => {
    const newestFirst = [...created].reverse();
    const tail = await ws.api.get(`/v1/agents?limit=2&after=${encodeURIComponent((await ws.api.get('/v1/agents?limit=5')).body.nextCursor)}`);
    expect(tail.body.data.map((a: { id: string }) => a.id)).toEqual(newestFirst.slice(5, 7));
    // Page backwards from the sixth item: `before` excludes the cursor's own item.
    const fromEnd = await ws.api.get('/v1/agents?limit=6');
    const back1 = await ws.api.get(`/v1/agents?limit=2&before=${encodeURIComponent(fromEnd.body.nextCursor)}`);
    expect(back1.body.data.map((a: { id: string }) => a.id)).toEqual(newestFirst.slice(3, 5));
    expect(back1.body.hasMore).toBe(true);
    const back2 = await ws.api.get(`/v1/agents?limit=2&before=${encodeURIComponent(back1.body.nextCursor)}`);
    expect(back2.body.data.map((a: { id: string }) => a.id)).toEqual(newestFirst.slice(1, 3));
    const back3 = await ws.api.get(`/v1/agents?limit=2&before=${encodeURIComponent(back2.body.nextCursor)}`);
    expect(back3.body.data.map((a: { id: string }) => a.id)).toEqual(newestFirst.slice(0, 1));
    expect(back3.body).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it('limit is 1..100 (default 50); outside, after with before, or a malformed cursor is 400', async () => {
    expect((await ws.api.get('/v1/agents?limit=1')).body.data).toHaveLength(1);
    expect((await ws.api.get('/v1/agents?limit=100')).status).toBe(200);
    expect((await ws.api.get('/v1/agents')).body.data).toHaveLength(7);
    const cursor = (await ws.api.get('/v1/agents?limit=1')).body.nextCursor;
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=-1', 'limit'],
      [`after=${cursor}&before=${cursor}`, 'before'],
      ['after=garbage', 'after'],
      [`before=${cursor.slice(0, -2)}xx`, 'before'],
      ['after=', 'after'],
      ['before=', 'before'],
    ] as const) {
      const res = await ws.api.get(`/v1/agents?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.code).toBe('svc.request.validation_failed');
      expect(res.body.errors[0].field).toBe(field);
      if (query.includes('=garbage') || query.endsWith('=')) expect(res.body.errors[0].reason, query).toBe('malformed cursor');
    }
  });

  it('a cursor cannot be carried into another workspace', async () => {
    const other = await workspace(emulator);
    await other.api.post('/v1/agents', { name: 'Z', identity: { businessName: 'B' } });
    const cursor = (await ws.api.get('/v1/agents?limit=1')).body.nextCursor;
    const res = await other.api.get(`/v1/agents?after=${encodeURIComponent(cursor)}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toEqual({ field: 'after', reason: 'malformed cursor' });
  });
});
