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
