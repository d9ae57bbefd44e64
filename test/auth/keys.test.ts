import { describe, expect, it } from 'vitest';
import { crc32 } from 'node:zlib';
import { formatApiKey, isWellFormedKey, keyChecksum } from '../../src/auth/api-key.js';
import { SCOPES } from '../../src/platform/scopes.js';
import { client, send } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';

const emulator = await fileEmulator();
const control = client(emulator);

async function freshWorkspace() {
  const ws = await workspace(emulator);
  // Revoke the default key so each test starts with zero active keys.
  await control.delete(`/workspaces/${ws.workspaceId}/keys/${ws.apiKey.id}`);
  return ws.workspaceId;
}

describe('key format', () => {
  it('is svc_<env>_<32 base62>_<CRC32 base62 of the rest, 6 chars>', () => {
    const key = formatApiKey('test', 'A'.repeat(32));
    const body = `svc_test_${'A'.repeat(32)}`;
    const crc = crc32(Buffer.from(body)) >>> 0;
    let n = crc;
    let b62 = '';
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    do {
      b62 = alphabet[n % 62] + b62;
      n = Math.floor(n / 62);
    } while (n > 0);
    expect(key).toBe(`${body}_${b62.padStart(6, '0')}`);
    expect(keyChecksum(body)).toHaveLength(6);
    expect(isWellFormedKey(key)).toBe(true);
    expect(isWellFormedKey(key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A'))).toBe(false);
    expect(isWellFormedKey(key.replace('svc_test_', 'svc_prod_'))).toBe(false);
  });
});

describe('console key routes', () => {
  it('create shows the secret once; the list never does', async () => {
    const ws = await freshWorkspace();
    const created = await control.post(`/workspaces/${ws}/keys`, { name: 'ci', scopes: ['knowledge:read'], env: 'live' });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe('application/json');
    expect(created.body).toMatchObject({ name: 'ci', env: 'live', scopes: ['knowledge:read'], expiresAt: null, revokedAt: null });
    expect(created.body.secret).toMatch(/^svc_live_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/);
    expect(created.body.prefix).toBe(created.body.secret.slice(0, 12));
    const list = await control.get(`/workspaces/${ws}/keys`);
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(created.body.secret);
    expect(list.text).not.toContain(created.body.secret.slice(12));
    expect(list.body.data.map((k: { id: string }) => k.id)).toContain(created.body.id);
    expect(list.body).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it('at most two active keys; a third is 409 until one is revoked or expires', async () => {
    const ws = await freshWorkspace();
    const a = await control.post(`/workspaces/${ws}/keys`, { name: 'a', scopes: ['knowledge:read'] });
    const b = await control.post(`/workspaces/${ws}/keys`, {
      name: 'b',
      scopes: ['knowledge:read'],
      expiresAt: new Date(emulator.clock.now() + 60_000).toISOString(),
    });
    expect([a.status, b.status]).toEqual([201, 201]);
    const third = await control.post(`/workspaces/${ws}/keys`, { name: 'c', scopes: ['knowledge:read'] });
    expect(third.status).toBe(409);
    expect(third.body.code).toBe('svc.api_key.limit_reached');
    expect(third.headers.get('content-type')).toBe('application/json');
    await emulator.clock.advance(60_000);
    const afterExpiry = await control.post(`/workspaces/${ws}/keys`, { name: 'c', scopes: ['knowledge:read'] });
    expect(afterExpiry.status).toBe(201);
    expect((await control.post(`/workspaces/${ws}/keys`, { name: 'd', scopes: ['knowledge:read'] })).status).toBe(409);
    await control.delete(`/workspaces/${ws}/keys/${a.body.id}`);
    expect((await control.post(`/workspaces/${ws}/keys`, { name: 'd', scopes: ['knowledge:read'] })).status).toBe(201);
  });

  it('refuses a key with no scope, an unknown scope, or a past expiry, and stores nothing', async () => {
    const ws = await freshWorkspace();
    const cases = [
      [{ name: 'x', scopes: [] }, 'scopes'],
      [{ name: 'x', scopes: ['everything'] }, 'scopes.0'],
      [{ name: 'x' }, 'scopes'],
      [{ name: '', scopes: ['knowledge:read'] }, 'name'],
      [{ name: 'x', scopes: ['knowledge:read'], expiresAt: '2000-01-01T00:00:00.000Z' }, 'expiresAt'],
      [{ name: 'x', scopes: ['knowledge:read'], expiresAt: 'tomorrow' }, 'expiresAt'],
      // No such day: it was read as March 2 (D-1099).
      [{ name: 'x', scopes: ['knowledge:read'], expiresAt: '2030-02-30T00:00:00Z' }, 'expiresAt'],
      [{ name: 'x', scopes: ['knowledge:read'], expiresAt: '2030-04-31T12:00:00.000Z' }, 'expiresAt'],
      [{ name: 'x', scopes: ['knowledge:read'], expiresAt: '2030-01-01T24:00:00Z' }, 'expiresAt'],
    ] as const;
    for (const [body, field] of cases) {
      const res = await control.post(`/workspaces/${ws}/keys`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('svc.request.validation_failed');
      expect(res.body.errors[0].field).toBe(field);
    }
    const list = await control.get(`/workspaces/${ws}/keys`);
    expect(list.body.data.filter((k: { revokedAt: string | null }) => !k.revokedAt)).toHaveLength(0);
  });

  it('takes an expiry as RFC 3339 writes it: an offset, lowercase t and z, February 29 of a leap year', async () => {
    const ws = await freshWorkspace();
    const year = new Date(emulator.clock.now()).getUTCFullYear() + 4 - (new Date(emulator.clock.now()).getUTCFullYear() % 4);
    for (const [expiresAt, stored] of [
      [`${year + 1}-03-01t10:00:00z`, `${year + 1}-03-01T10:00:00.000Z`],
      [`${year}-02-29T12:00:00+02:00`, `${year}-02-29T10:00:00.000Z`],
    ]) {
      const res = await control.post(`/workspaces/${ws}/keys`, { name: 'x', scopes: ['knowledge:read'], expiresAt });
      expect([res.status, res.body.expiresAt], expiresAt).toEqual([201, stored]);
      await control.delete(`/workspaces/${ws}/keys/${res.body.id}`);
    }
  });

  it('unknown workspace is 404 svc.tenant.not_found; unknown key 404', async () => {
    const res = await control.post('/workspaces/ws_nope/keys', { name: 'x', scopes: ['knowledge:read'] });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('svc.tenant.not_found');
    const ws = await freshWorkspace();
    expect((await control.delete(`/workspaces/${ws}/keys/key_nope`)).status).toBe(404);
  });
});

describe('authentication', () => {
  it('missing, malformed, bad-checksum, unknown, revoked and expired keys get one identical 401', async () => {
    const ws = await freshWorkspace();
    const revoked = (await control.post(`/workspaces/${ws}/keys`, { name: 'r', scopes: ['knowledge:read'] })).body;
    await control.delete(`/workspaces/${ws}/keys/${revoked.id}`);
    const expiring = (
      await control.post(`/workspaces/${ws}/keys`, { name: 'e', scopes: ['knowledge:read'], expiresAt: new Date(emulator.clock.now() + 1000).toISOString() })
    ).body;
    await emulator.clock.advance(1000);
    const good = formatApiKey('test', 'B'.repeat(32));
    const badChecksum = good.slice(0, -6) + (good.endsWith('000000') ? '000001' : '000000');
    const headers: (Record<string, string> | undefined)[] = [
      undefined,
      { authorization: 'Bearer' },
      { authorization: 'Basic abc' },
      { authorization: 'Bearer not-a-key' },
      { authorization: `Bearer ${badChecksum}` },
      { authorization: `Bearer ${good}` },
      { authorization: `Bearer ${revoked.secret}` },
      { authorization: `Bearer ${expiring.secret}` },
      { authorization: `Bearer ${revoked.prefix}` },
    ];
    const bodies = new Set<string>();
    for (const h of headers) {
      const res = await send(emulator, 'GET', '/v1/me', { headers: h ?? {} });
      expect(res.status).toBe(401);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
      const { requestId, ...rest } = res.body;
      expect(requestId).toBe(res.headers.get('x-request-id'));
      bodies.add(JSON.stringify(rest));
    }
    expect(bodies.size).toBe(1);
    expect(JSON.parse([...bodies][0]!).code).toBe('svc.api_key.invalid');
  });

  it('takes the scheme in any case, as HTTP does (bearer, BEARER)', async () => {
    const ws = await workspace(emulator);
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await send(emulator, 'GET', '/v1/me', { headers: { authorization: `${scheme} ${ws.apiKey.secret}` } });
      expect(res.status, scheme).toBe(200);
    }
  });

  it('revocation is effective at once', async () => {
    const ws = await workspace(emulator);
    expect((await ws.api.get('/v1/me')).status).toBe(200);
    await control.delete(`/workspaces/${ws.workspaceId}/keys/${ws.apiKey.id}`);
    expect((await ws.api.get('/v1/me')).status).toBe(401);
  });

  it('GET /v1/me answers the workspace and scopes, whatever the scopes', async () => {
    const ws = await workspace(emulator, { scopes: ['chat:write'] });
    const me = await ws.api.get('/v1/me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ workspaceId: ws.workspaceId, scopes: ['chat:write'] });
    const all = await workspace(emulator);
    expect((await all.api.get('/v1/me')).body.scopes).toEqual([...SCOPES]);
  });

  it('a missing scope is 403 before any lookup; write never implies read', async () => {
    const writer = await workspace(emulator, { scopes: ['landings:write'] });
    const created = await writer.api.post('/v1/agents', { name: 'A', identity: { businessName: 'B' } });
    expect(created.status).toBe(201);
    for (const path of ['/v1/agents', `/v1/agents/${created.body.id}`, '/v1/agents/agt_missing']) {
      const res = await writer.api.get(path);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('svc.api_key.scope_missing');
    }
    const reader = await workspace(emulator, { scopes: ['landings:read'] });
    expect((await reader.api.post('/v1/agents', { name: 'A', identity: { businessName: 'B' } })).status).toBe(403);
  });

  it('a key reaches only its own workspace', async () => {
    const a = await workspace(emulator);
    const b = await workspace(emulator);
    const agent = (await a.api.post('/v1/agents', { name: 'A', identity: { businessName: 'B' } })).body;
    for (const res of [
      await b.api.get(`/v1/agents/${agent.id}`),
      await b.api.patch(`/v1/agents/${agent.id}`, { name: 'X' }),
      await b.api.delete(`/v1/agents/${agent.id}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('svc.agent.not_found');
    }
    expect((await b.api.get('/v1/agents')).body.data).toEqual([]);
    expect((await a.api.get(`/v1/agents/${agent.id}`)).body.name).toBe('A');
  });
});
