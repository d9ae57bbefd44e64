import type { Emulator } from '../../emulator/emulator.js';
import { client } from '../support/client.js';

const PNG_1x1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

/**
 * One workspace holding one of everything, created through the API. Routes that do
 * not answer 2xx are skipped, so this also works while parts are still being built.
 */
export async function seedEverything(emulator: Emulator) {
  const ws = await emulator.createWorkspace({ name: 'fuzz' });
  const api = client(emulator, ws.apiKey.secret);
  const made: Record<string, string> = { workspaceId: ws.workspaceId, tenantId: ws.workspaceId, keyId: ws.apiKey.id };
  const take = async (name: string, pending: ReturnType<typeof api.post>) => {
    const res = await pending;
    if (res.status < 300 && res.body?.id) made[name] = res.body.id;
    return res;
  };
  await take('agentId', api.post('/v1/agents', { name: 'Fuzz', identity: { businessName: 'Fuzz Inc' } }));
  await take('sourceId', api.post('/v1/knowledge/text', { title: 'Doc', text: 'Fuzz testing finds bugs.', topics: ['qa'], agentId: made.agentId }));
  await take('projectId', api.post('/v1/projects', { name: 'Fuzz site', slug: `fuzz-${ws.workspaceId.slice(-8)}` }));
  if (made.projectId) {
    await take('pageId', api.post(`/v1/projects/${made.projectId}/pages`, { name: 'Home', kind: 'agent', path: '/', agentId: made.agentId }));
  }
  const form = new FormData();
  form.set('file', new File([PNG_1x1], 'pixel.png', { type: 'image/png' }));
  await take('assetId', api.post('/v1/assets', form));
  await emulator.drain();
  return { key: ws.apiKey.secret, made };
}

/** Ids by path parameter name, for routes that take them. */
export async function knownIds(_emulator: Emulator, seeded: { made: Record<string, string> }): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = { slot: ['logo', 'favicon'] };
  for (const [name, id] of Object.entries(seeded.made)) out[name] = [id];
  return out;
}
