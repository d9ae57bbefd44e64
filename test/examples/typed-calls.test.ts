import { expect, it } from 'vitest';
import type { components } from 'svc-emulator/emulator';
import { setupEmulator } from 'svc-emulator/vitest';

// Every record of the API is a named schema: Agent, Source, Project, Page, Asset...
type Agent = components['schemas']['Agent'];

// `ctx.api.GET/POST/...` are typed by path and method from the OpenAPI description:
// the body each route takes, and the record each status answers.
const ctx = setupEmulator({ seed: 1 });

it('creates and reads an agent, typed end to end', async () => {
  const created = await ctx.api.POST('/v1/agents', { body: { name: 'Ada', identity: { businessName: 'Acme' } } });
  if (created.status !== 201) throw new Error(created.error.detail);
  const agent: Agent = created.data; // { id, name, identity, createdAt, updatedAt }
  const got = await ctx.api.GET('/v1/agents/{agentId}', { params: { path: { agentId: agent.id } } });
  expect(got.status).toBe(200);
  if (got.ok) expect(got.data.identity.businessName).toBe('Acme');
});

it('lists with query parameters; a problem is typed by its status too', async () => {
  const page = await ctx.api.GET('/v1/agents', { params: { query: { limit: 10 } } });
  expect(page.ok && page.data.data).toEqual([]);
  const missing = await ctx.api.GET('/v1/agents/{agentId}', { params: { path: { agentId: 'agt_missing' } } });
  // A 404 of this route can only be `svc.agent.not_found`: the code is typed by status.
  if (missing.status === 404) expect(missing.error.code).toBe('svc.agent.not_found');
  expect(missing.status).toBe(404);
});

it('uploads a file: a Blob field goes as multipart', async () => {
  const png = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0));
  const asset = await ctx.api.POST('/v1/assets', { body: { file: new Blob([png]), alt: 'a dot' } });
  expect(asset.status).toBe(201);
  if (asset.status === 201) expect(asset.body).toMatchObject({ contentType: 'image/png', width: 1, height: 1, alt: 'a dot' });
});

it('a wrong field does not compile, and the server refuses it too', async () => {
  // @ts-expect-error `nam` is not a field of a new agent
  const wrong = await ctx.api.POST('/v1/agents', { body: { nam: 'Ada', identity: { businessName: 'Acme' } } });
  expect(wrong.status).toBe(400);
  // @ts-expect-error `identity.businessName` must be a string
  const badType = await ctx.api.POST('/v1/agents', { body: { name: 'Ada', identity: { businessName: 42 } } });
  expect(badType.status).toBe(400);
  // @ts-expect-error the path parameter is missing
  await expect(ctx.api.GET('/v1/agents/{agentId}')).rejects.toThrow(/missing path parameter agentId/);
  // @ts-expect-error there is no such route
  expect((await ctx.api.GET('/v1/agent')).status).toBe(404);
  // @ts-expect-error `limit` is an integer, not text
  expect((await ctx.api.GET('/v1/agents', { params: { query: { limit: '10' } } })).status).toBe(200);
  const missing = await ctx.api.GET('/v1/agents/{agentId}', { params: { path: { agentId: 'agt_missing' } } });
  // @ts-expect-error a 404 of GET /v1/agents/{agentId} is never a missing page
  if (missing.status === 404) expect(missing.error.code === 'svc.page.not_found').toBe(false);
  const created = await ctx.api.POST('/v1/agents', { body: { name: 'Bo', identity: { businessName: 'Acme' } } });
  if (created.status === 201) {
    // @ts-expect-error an agent has no `title`
    expect(created.body.title).toBeUndefined();
    // @ts-expect-error `name` is a string, not a number
    const count: number = created.body.name;
    expect(count).toBe('Bo');
  }
});
