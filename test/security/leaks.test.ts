import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { send, type ApiResponse } from '../support/client.js';
import { quiet } from '../support/emulator.js';

const DEMO_KEYS = ['svc_test_DemoFullAccessKey000000000000001_0k1rIW', 'svc_test_DemoReadOnlyKey00000000000000001_1YUbBi'];
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
// A stack frame, a file of the code base, or a database error text.
const INTERNALS = /\n\s+at .+\(|node_modules|\/src\/|\.ts:\d+|SQLITE_|sqlite3|syntax error at|relation "/;

describe('secrets, hashes and stacks', () => {
  it('never appear in a response (but the one-time secret of a new key) or in the journal', async () => {
    const emulator = await createEmulator({ fixtures: 'demo', seed: 5, log: quiet });
    try {
      const seen: { what: string; res: ApiResponse }[] = [];
      const call = async (method: string, path: string, options: Parameters<typeof send>[3] = {}) => {
        const res = await send(emulator, method, path, options);
        seen.push({ what: `${method} ${path}`, res });
        return res;
      };
      const [full, readOnly] = DEMO_KEYS;
      const me = (await call('GET', '/v1/me', { key: full })).body;
      // Keys created now: their secrets may appear once, in their creation answers only.
      const other = (await send(emulator, 'POST', '/_emulator/workspaces', { body: { name: 'other' } })).body;
      const created = await send(emulator, 'POST', `/workspaces/${other.workspaceId}/keys`, { body: { name: 'temp', scopes: ['knowledge:read'] } });
      expect(created.status).toBe(201);
      const secrets = [...DEMO_KEYS, other.apiKey.secret as string, created.body.secret as string];
      await call('GET', '/v1/me', { key: other.apiKey.secret });
      await call('GET', '/v1/me', { key: created.body.secret });
      await call('DELETE', `/workspaces/${other.workspaceId}/keys/${created.body.id}`);
      await call('GET', '/v1/me', { key: created.body.secret });

      for (const key of [full, readOnly, undefined, 'svc_test_wrong', `${full}x`]) {
        for (const path of [
          '/v1/me',
          '/v1/agents',
          '/v1/knowledge/sources',
          '/v1/knowledge/topics',
          '/v1/projects',
          '/v1/assets',
          '/v1/usage',
          '/v1/nowhere',
        ]) {
          await call('GET', path, { key });
        }
      }
      const agents = (await call('GET', '/v1/agents', { key: full })).body.data;
      const projects = (await call('GET', '/v1/projects', { key: full })).body.data;
      for (const a of agents) {
        await call('POST', `/v1/agents/${a.id}/query`, { key: full, body: { query: 'shipping' } });
        await call('POST', `/v1/agents/${a.id}/chat`, { key: full, body: { message: 'Hello, where are you?' } });
        await call('POST', `/v1/agents/${a.id}/chat`, { key: readOnly, body: { message: 'hi' } });
      }
      for (const p of projects) {
        for (const sub of ['', '/theme', '/brand', '/pages']) await call('GET', `/v1/projects/${p.id}${sub}`, { key: full });
        await call('PATCH', `/v1/projects/${p.id}`, { key: full, body: '{"name":', headers: { 'content-type': 'application/json' } });
      }
      await call('POST', '/v1/agents', { key: full, body: { name: 'x'.repeat(100) } });
      await call('GET', `/workspaces/${me.workspaceId}/keys`);
      await call('GET', '/_emulator/state');
      await call('GET', 'http://cafe-aurora.localhost/');
      const journal = await call('GET', '/_emulator/requests?limit=1000');
      expect(journal.body.data.length).toBeGreaterThan(50);

      for (const { what, res } of seen) {
        for (const secret of secrets) {
          expect(res.text.includes(secret), `${what} shows a key`).toBe(false);
          expect(res.text.includes(sha(secret)), `${what} shows a key hash`).toBe(false);
          // Nor a recognisable part of one: the public prefix is the most a response names.
          expect(res.text.includes(secret.slice(12, 40)), `${what} shows part of a key`).toBe(false);
        }
        expect(INTERNALS.test(res.text), `${what} shows internals: ${res.text.slice(0, 200)}`).toBe(false);
        expect([...res.headers.values()].join('\n')).not.toMatch(/svc_(test|live)_[0-9A-Za-z]{32}/);
      }
    } finally {
      await emulator.close();
    }
  });
});
