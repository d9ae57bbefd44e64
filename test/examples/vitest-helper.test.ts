import { expect, it } from 'vitest';
import { setupEmulator } from 'svc-emulator/vitest';

// One emulator for this file, a fresh workspace and key for every test.
const ctx = setupEmulator({ seed: 1 });

it('creates an agent', async () => {
  const res = await ctx.api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } });
  expect(res.status).toBe(201);
  expect((await ctx.api.get(`/v1/agents/${res.body.id}`)).body.name).toBe('Ada');
});

it('starts each test in an empty workspace', async () => {
  expect((await ctx.api.get('/v1/agents')).body.data).toEqual([]);
});

it('drives the control plane', async () => {
  await ctx.control.patch(`/_emulator/workspaces/${ctx.workspace.workspaceId}`, { dailyActivityCap: 1 });
  expect((await ctx.api.get('/v1/me')).status).toBe(200);
  expect((await ctx.api.get('/v1/me')).body.code).toBe('svc.usage.budget_exceeded');
});
