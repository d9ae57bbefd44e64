import { expect, it } from 'vitest';
import { setupEmulator } from 'svc-emulator/vitest';

// One emulator for this file, a fresh workspace and key for every test.
const ctx = setupEmulator({ seed: 1 });

it('creates an agent', async () => {
  // Typed by path and method: the body is checked, the answer typed per status.
  const res = await ctx.api.POST('/v1/agents', { body: { name: 'Ada', identity: { businessName: 'Acme' } } });
  if (res.status !== 201) throw new Error(res.error.detail);
  const got = await ctx.api.GET('/v1/agents/{agentId}', { params: { path: { agentId: res.data.id } } });
  expect(got.ok && got.data.name).toBe('Ada');
});

it('starts each test in an empty workspace', async () => {
  const agents = await ctx.api.GET('/v1/agents');
  expect(agents.ok && agents.data.data).toEqual([]);
});

it('drives the control plane', async () => {
  const { workspaceId } = ctx.workspace;
  await ctx.control.PATCH('/_emulator/workspaces/{workspaceId}', { params: { path: { workspaceId } }, body: { dailyActivityCap: 1 } });
  const me = await ctx.api.GET('/v1/me');
  if (me.ok) expect(me.data.scopes).toContain('landings:write');
  const refused = await ctx.api.GET('/v1/me');
  expect(refused.status === 429 && refused.error.code).toBe('svc.usage.budget_exceeded');
});
