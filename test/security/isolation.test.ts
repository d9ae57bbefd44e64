import { beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import { client, send, type ApiResponse } from '../support/client.js';
import { quiet } from '../support/emulator.js';
import { seedEverything } from '../hostile/seed.js';

let emulator: Emulator;
let owner: Awaited<ReturnType<typeof seedEverything>>;
let stranger: string;

beforeAll(async () => {
  emulator = await createEmulator({ seed: 77, log: quiet });
  owner = await seedEverything(emulator);
  stranger = (await emulator.createWorkspace({ name: 'stranger' })).apiKey.secret;
  return () => emulator.close();
});

/** The same id shape with other characters: an id that exists nowhere. */
const unknownLike = (id: string) => id.replace(/[0-9a-z]{6}$/, 'zzzzzz');

/** What a client can learn from an answer, without the parts that differ per request. */
function visible(res: ApiResponse) {
  const { requestId: _r, instance: _i, ...rest } = (res.body ?? {}) as Record<string, unknown>;
  return { status: res.status, body: rest };
}

const ownerTables = async (workspaceId: string) => {
  const { tables } = await emulator.exportState();
  const { activity: _meter, ...rest } = tables;
  return JSON.stringify(
    Object.fromEntries(Object.entries(rest).map(([t, rows]) => [t, rows.filter((r) => r.workspace_id === workspaceId || r.id === workspaceId)])),
  );
};

describe('cross-workspace probes', () => {
  it('every /v1 route called with another workspace’s ids answers as for ids that exist nowhere, and changes nothing', async () => {
    const ids: Record<string, string> = owner.made;
    const before = await ownerTables(ids.workspaceId!);
    const routes = emulator.openapi.routes.filter((r) => r.path.startsWith('/v1') && r.path.includes(':'));
    expect(routes.length).toBeGreaterThan(15);
    let probed = 0;
    for (const route of routes) {
      const names = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
      if (!names.every((n) => n === 'slot' || ids[n])) continue;
      const path = (real: boolean) =>
        route.path.replace(/:([A-Za-z0-9_]+)/g, (_, n: string) => (n === 'slot' ? 'logo' : real ? ids[n]! : unknownLike(ids[n]!)));
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
      const theirs = await send(emulator, route.method, path(true), { key: stranger, ...(body && { body }) });
      const nobodys = await send(emulator, route.method, path(false), { key: stranger, ...(body && { body }) });
      expect(theirs.status, `${route.method} ${route.path}`).toBeGreaterThanOrEqual(400);
      expect(visible(theirs), `${route.method} ${route.path} tells the stranger something`).toEqual(visible(nobodys));
      for (const id of Object.values(ids)) expect(JSON.stringify(theirs.body ?? {}).replace(path(true), '')).not.toContain(id);
      probed++;
    }
    expect(probed).toBeGreaterThan(15);
    expect(await ownerTables(ids.workspaceId!)).toBe(before);
  });

  it('lists and searches of another workspace show nothing of the owner', async () => {
    const api = client(emulator, stranger);
    for (const path of ['/v1/agents', '/v1/knowledge/sources', '/v1/knowledge/topics', '/v1/projects', '/v1/assets']) {
      const res = await api.get(path);
      expect(res.status, path).toBe(200);
      expect(res.body.data, path).toEqual([]);
    }
    const filtered = await api.get(`/v1/knowledge/sources?agentId=${owner.made.agentId}`);
    expect(filtered.status).toBe(404);
    expect(filtered.body.code).toBe('svc.agent.not_found');
  });
});
