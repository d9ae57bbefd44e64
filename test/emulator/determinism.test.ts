import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { send } from '../support/client.js';
import { quiet } from '../support/emulator.js';

/** A scripted session; answers recorded with every header that is not transport. */
async function session(seed: number): Promise<string[]> {
  const emulator = await createEmulator({ seed, log: quiet });
  const out: string[] = [];
  const record = async (method: string, path: string, options: Parameters<typeof send>[3] = {}) => {
    const res = await send(emulator, method, path, options);
    out.push(`${method} ${path} ${res.status} ${JSON.stringify([...res.headers])} ${res.text}`);
    return res;
  };
  try {
    const ws = (await record('POST', '/_emulator/workspaces', { body: { name: 'Det' } })).body;
    const key = ws.apiKey.secret;
    await record('GET', '/v1/me', { key });
    const a = (await record('POST', '/v1/agents', { key, body: { name: 'One', identity: { businessName: 'B' } } })).body;
    await record('POST', '/v1/agents', { key, body: { name: 'Two', identity: { businessName: 'B' } }, headers: { 'idempotency-key': 'i' } });
    await record('POST', '/v1/agents', { key, body: { name: 'Two', identity: { businessName: 'B' } }, headers: { 'idempotency-key': 'i' } });
    await record('POST', '/_emulator/clock', { body: { advanceMs: 5000 } });
    await record('PATCH', `/v1/agents/${a.id}`, { key, body: { name: 'Uno' } });
    await record('GET', '/v1/agents?limit=1', { key });
    await record('GET', '/v1/agents/agt_missing', { key, headers: { 'accept-language': 'es' } });
    await record('POST', `/workspaces/${ws.workspaceId}/keys`, { body: { name: 'second', scopes: ['knowledge:read'] } });
    // Every part: knowledge ingestion, retrieval, chat (JSON and streamed), a site, an asset, usage.
    await record('POST', '/v1/knowledge/text', {
      key,
      body: { title: 'Hours', text: '# Hours\n\nWe open every day from 9:00 to 20:00.', agentId: a.id, topics: ['hours'] },
    });
    await record('POST', '/_emulator/queue/drain');
    await record('GET', '/v1/knowledge/sources', { key });
    await record('POST', `/v1/agents/${a.id}/query`, { key, body: { query: 'When do you open?' } });
    await record('POST', `/v1/agents/${a.id}/chat`, { key, body: { message: 'When do you open?' } });
    await record('POST', `/v1/agents/${a.id}/chat`, { key, body: { message: '¿A qué hora abrís?' }, headers: { accept: 'text/event-stream' } });
    const project = (await record('POST', '/v1/projects', { key, body: { name: 'Det site', slug: 'det-site' } })).body;
    const home = (await record('POST', `/v1/projects/${project.id}/pages`, { key, body: { name: 'Home', kind: 'agent', path: '/', agentId: a.id } })).body;
    await record('POST', `/v1/pages/${home.id}/publish`, { key });
    await record('GET', 'http://det-site.localhost/');
    const form = new FormData();
    form.set(
      'file',
      new File([Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64')], 'pixel.png', {
        type: 'image/png',
      }),
    );
    await record('POST', '/v1/assets', { key, body: form });
    await record('GET', '/v1/usage', { key });
    await record('GET', '/_emulator/state');
  } finally {
    await emulator.close();
  }
  return out;
}

describe('--seed', () => {
  it('the same scripted session run twice gives byte-identical responses', async () => {
    const first = await session(42);
    const second = await session(42);
    expect(second).toEqual(first);
    const other = await session(43);
    expect(other).not.toEqual(first);
  });
});

describe('ids are never reused (CONTRACT, D-1170)', () => {
  it('after a reset or an import, what the process handed out (ids, key secrets) is not handed out again; a fresh emulator continues an imported state exactly', async () => {
    const emulator = await createEmulator({ seed: 5, log: quiet });
    try {
      const before = await emulator.createWorkspace();
      await emulator.reset();
      const after = await emulator.createWorkspace();
      expect(after.workspaceId).not.toBe(before.workspaceId);
      expect(after.apiKey.id).not.toBe(before.apiKey.id);
      expect(after.apiKey.secret).not.toBe(before.apiKey.secret);
      // The key of the discarded timeline stays unknown: no new key took its secret.
      expect((await send(emulator, 'GET', '/v1/me', { key: before.apiKey.secret })).status).toBe(401);
      const snapshot = await emulator.exportState();
      const lost = await emulator.createWorkspace();
      await emulator.importState(snapshot);
      const next = await emulator.createWorkspace();
      expect([before.workspaceId, after.workspaceId, lost.workspaceId]).not.toContain(next.workspaceId);
      const fresh = await createEmulator({ seed: 5, log: quiet });
      try {
        await fresh.importState(snapshot);
        // Processes sharing a store draw their own streams, imports or not (D-208).
        if (!fresh.service.coherence.shared) expect((await fresh.createWorkspace()).workspaceId).toBe(lost.workspaceId);
      } finally {
        await fresh.close();
      }
    } finally {
      await emulator.close();
    }
  });
});
