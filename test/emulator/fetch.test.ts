import { describe, expect, it } from 'vitest';
import { fileEmulator } from '../support/emulator.js';

const emulator = await fileEmulator({ seed: 17 });
const { apiKey } = await emulator.createWorkspace();
const auth = { authorization: `Bearer ${apiKey.secret}` };

describe('emulator.fetch takes what global fetch takes', () => {
  it('a string (absolute, or relative to http://localhost), a URL, a Request, each with init', async () => {
    const answers = await Promise.all([
      emulator.fetch('http://localhost/v1/me', { headers: auth }),
      emulator.fetch('/v1/me', { headers: auth }),
      emulator.fetch(new URL('http://127.0.0.1/v1/me'), { headers: auth }),
      emulator.fetch(new Request('http://localhost/v1/me', { headers: auth })),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(((await res.json()) as { workspaceId: string }).workspaceId).toBeTypeOf('string');
    }
  });

  it('init overrides a Request, as with fetch: method, headers and body', async () => {
    const base = new Request('http://localhost/v1/agents', { headers: auth });
    const res = await emulator.fetch(base, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ada', identity: { businessName: 'Acme' } }),
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { name: string }).name).toBe('Ada');
    // Init headers replace the Request's: without a key the same call is refused.
    expect((await emulator.fetch(base, { method: 'POST', headers: {} })).status).toBe(401);
  });

  // test/examples/openapi-fetch.test.ts hands it to openapi-fetch.
  it('fits wherever `typeof fetch` is expected', async () => {
    const asFetch: typeof fetch = emulator.fetch;
    const res = await asFetch('/v1/me', { headers: auth });
    expect(res.status).toBe(200);
  });
});
