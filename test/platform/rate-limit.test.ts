import { describe, expect, it } from 'vitest';
import { client } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';

const emulator = await fileEmulator({ seed: 3 });
const control = client(emulator);

describe('rate limit per key', () => {
  it('advertises the budget on every /v1 answer, errors included', async () => {
    const { api } = await workspace(emulator);
    const responses = [await api.get('/v1/me'), await api.get('/v1/agents/agt_x'), await api.get('/v1/nowhere'), await api.post('/v1/agents', {})];
    responses.forEach((res, i) => {
      expect(res.headers.get('x-ratelimit-limit')).toBe('600');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(599 - i));
      expect(res.headers.get('ratelimit-policy')).toBe('"default";q=600;w=60');
      expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^"default";r=${599 - i};t=\\d+$`));
      expect(Number(res.headers.get('x-ratelimit-reset')) * 1000).toBeGreaterThan(emulator.clock.now());
    });
  });

  it('the limit-th request passes, the next is 429 with Retry-After no earlier than t; the window resets on the emulated clock', async () => {
    const ws = await workspace(emulator);
    await control.patch(`/_emulator/workspaces/${ws.workspaceId}`, { rateLimit: { limit: 3, windowSeconds: 10 } });
    // Start at the beginning of a window so that the test does not straddle two.
    const now = emulator.clock.now();
    await emulator.clock.advance(10_000 - (now % 10_000));
    for (let i = 0; i < 3; i++) expect((await ws.api.get(i === 1 ? '/v1/agents' : '/v1/me')).status).toBe(200);
    const refused = await ws.api.get('/v1/me');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('svc.rate_limit.exceeded');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    const t = Number(/t=(\d+)/.exec(refused.headers.get('ratelimit')!)![1]);
    expect(t).toBe(10);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(t);
    // Seeded, the clock stands still: waiting `Retry-After` ends nothing, and the answer says how the window ends (D-1226).
    expect(refused.body.detail).toBe(
      'Too many requests for this key; retry after the window resets. The emulated clock is frozen (the emulator was started with a seed), so this window ends only when the clock moves: POST /_emulator/clock with { "advanceMs": <milliseconds> }.',
    );
    const spanish = await ws.api.get('/v1/me', { 'accept-language': 'es' });
    expect(spanish.body.detail).toMatch(/^Demasiadas solicitudes para esta clave; .* El reloj emulado está detenido .*POST \/_emulator\/clock/);
    await emulator.clock.advance(9_999);
    expect((await ws.api.get('/v1/me')).status).toBe(429);
    await emulator.clock.advance(1);
    const again = await ws.api.get('/v1/me');
    expect(again.status).toBe(200);
    expect(again.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('on a clock that follows real time, the 429 says to wait, and nothing of moving the clock', async () => {
    const running = await fileEmulator();
    const ws = await workspace(running);
    await client(running).patch(`/_emulator/workspaces/${ws.workspaceId}`, { rateLimit: { limit: 1, windowSeconds: 3600 } });
    expect((await ws.api.get('/v1/me')).status).toBe(200);
    const refused = await ws.api.get('/v1/me');
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toBe('Too many requests for this key; retry after the window resets.');
  });

  it('each key has its own budget, shared by every route', async () => {
    const ws = await workspace(emulator);
    await control.patch(`/_emulator/workspaces/${ws.workspaceId}`, { rateLimit: { limit: 2 } });
    const second = (await control.post(`/workspaces/${ws.workspaceId}/keys`, { name: 'second', scopes: ['landings:read'] })).body;
    const other = client(emulator, second.secret);
    expect((await ws.api.get('/v1/me')).status).toBe(200);
    expect((await ws.api.get('/v1/agents')).status).toBe(200);
    expect((await ws.api.get('/v1/agents')).status).toBe(429);
    expect((await other.get('/v1/agents')).status).toBe(200);
  });
});

describe('daily activity cap', () => {
  it('caps authenticated requests per UTC day with 429 svc.usage.budget_exceeded and no Retry-After', async () => {
    const ws = await workspace(emulator);
    await control.patch(`/_emulator/workspaces/${ws.workspaceId}`, { dailyActivityCap: 2 });
    expect((await ws.api.get('/v1/me')).status).toBe(200);
    expect((await ws.api.get('/v1/me')).status).toBe(200);
    const refused = await ws.api.get('/v1/me');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('svc.usage.budget_exceeded');
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(refused.headers.get('x-ratelimit-limit')).toBe('600');
    const now = emulator.clock.now();
    await emulator.clock.advance(86_400_000 - (now % 86_400_000));
    expect((await ws.api.get('/v1/me')).status).toBe(200);
  });

  it('null lifts the cap; 0 refuses everything', async () => {
    const ws = await workspace(emulator);
    await control.patch(`/_emulator/workspaces/${ws.workspaceId}`, { dailyActivityCap: 0 });
    expect((await ws.api.get('/v1/me')).status).toBe(429);
    await control.patch(`/_emulator/workspaces/${ws.workspaceId}`, { dailyActivityCap: null });
    expect((await ws.api.get('/v1/me')).status).toBe(200);
  });

  it('every authenticated /v1 request counts as activity, those refused by either 429 too (CONTRACT; D-1195)', async () => {
    const ws = await workspace(emulator);
    const today = () => emulator.service.workspaces.activityToday(ws.workspaceId);
    await control.patch(`/_emulator/workspaces/${ws.workspaceId}`, { dailyActivityCap: 3, rateLimit: { limit: 2, windowSeconds: 60 } });
    const now = emulator.clock.now();
    await emulator.clock.advance(60_000 - (now % 60_000));
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await ws.api.get('/v1/me')).status);
    // Two pass the rate limit, the next two are refused by it: all four count.
    expect(statuses).toEqual([200, 200, 429, 429]);
    expect(await today()).toBe(4);
    // A new window: past the daily cap now, refused by it, and counted as well.
    await emulator.clock.advance(60_000);
    const capped = await ws.api.get('/v1/me');
    expect([capped.status, capped.body.code]).toEqual([429, 'svc.usage.budget_exceeded']);
    expect(await today()).toBe(5);
    // A request without a key is no activity of the workspace.
    expect((await client(emulator, 'svc_test_nope').get('/v1/me')).status).toBe(401);
    expect(await today()).toBe(5);
    // A higher cap admits again once the day's count is under it.
    await control.patch(`/_emulator/workspaces/${ws.workspaceId}`, { dailyActivityCap: 7 });
    expect((await ws.api.get('/v1/me')).status).toBe(200);
    expect(await today()).toBe(6);
  });
});
