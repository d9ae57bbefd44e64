// What a user of the package writes, from the README and docs/testing.md, compiled by
// consumer-types.test.ts (beside it) in a fresh project that installed the packed
// tarball (`tsc --strict`). Each `@ts-expect-error` names the error it stands for: the
// test also compiles a copy without them and checks that exactly those lines fail so.
// The project's own typecheck compiles this file against the sources too.
import { setupServer } from 'msw/node';
import { expect, it } from 'vitest';
import { createClient, createEmulator, type ApiResponse, type Client, type EmulatorOptions } from 'svc-emulator';
import type { components, paths } from 'svc-emulator/emulator';
import { emulatorHandlers } from 'svc-emulator/msw';
import { setupEmulator } from 'svc-emulator/vitest';

type Agent = components['schemas']['Agent'];

// As a library: an emulator in process, a workspace, a request through `fetch`.
const options: EmulatorOptions = { seed: 1, fixtures: 'none' };
const emulator = await createEmulator(options);
const { workspaceId, apiKey } = await emulator.createWorkspace({ scopes: ['landings:read', 'landings:write'] });
const raw: Response = await emulator.fetch(
  new Request('http://localhost/v1/agents', {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Ada', identity: { businessName: 'Acme' } }),
  }),
);
const relative: Response = await emulator.fetch('/v1/me', { headers: { authorization: `Bearer ${apiKey.secret}` } });
await emulator.clock.advance(60_000);
const now: string = emulator.clock.get().now;
const ran: number = await emulator.drain();
// @ts-expect-error TS2561 `sed` is not an option (did you mean `seed`?)
await createEmulator({ sed: 1 });
// @ts-expect-error TS2322 `seed` is a string or a number
await createEmulator({ seed: true });

// createClient: typed calls, with and without an init argument.
const api: Client = createClient(emulator, apiKey.secret);
const me = await api.GET('/v1/me');
if (me.ok) {
  const scopes: string[] = me.data.scopes;
  const id: string = me.body.workspaceId;
  console.log(scopes, id);
}
const sources = await api.GET('/v1/knowledge/sources');
if (sources.status === 200)
  console.log(
    sources.data.data.map((s) => s.status),
    sources.body.hasMore,
  );
if (sources.status === 403) console.log(sources.error.code === 'svc.api_key.scope_missing');
const created = await api.POST('/v1/agents', { body: { name: 'Ada', identity: { businessName: 'Acme' } } });
if (created.status !== 201) throw new Error(created.error.detail);
const agent: Agent = created.data;
const got = await api.GET('/v1/agents/{agentId}', { params: { path: { agentId: agent.id } } });
if (got.status === 404) console.log(got.error.code === 'svc.agent.not_found');
const page = await api.GET('/v1/agents', { params: { query: { limit: 10 } } });
const names: string[] = page.ok ? page.data.data.map((a) => a.name) : [];
const text = await api.GET('/v1/me', { parseAs: 'text' });
if (text.ok) console.log(text.data.length);
// @ts-expect-error TS2561 `nam` is not a field of a new agent (did you mean `name`?)
await api.POST('/v1/agents', { body: { nam: 'Ada', identity: { businessName: 'Acme' } } });
// @ts-expect-error TS2345 there is no such route
await api.GET('/v1/agent');
// @ts-expect-error TS2367 GET /v1/me never answers 201
if (me.status === 201) console.log(me);
// @ts-expect-error TS2367 a 404 of GET /v1/agents/{agentId} is never a missing page
if (got.status === 404 && got.error.code === 'svc.page.not_found') console.log(got);
// @ts-expect-error TS18048 `data` is only there on 2xx: narrow first
console.log(me.data.scopes);
// @ts-expect-error TS2339 an agent has no `title`
if (got.ok) console.log(got.data.title);
const reply = await api.POST('/v1/agents/{agentId}/chat', { params: { path: { agentId: agent.id } }, body: { message: 'Hello' } });
if (reply.ok) console.log(reply.data.reply);
// @ts-expect-error TS2322 the path names the agent: a chat body never takes `agentId`
await api.POST('/v1/agents/{agentId}/chat', { params: { path: { agentId: agent.id } }, body: { message: 'Hello', agentId: agent.id } });
const asked = await api.POST('/v1/agents/{agentId}/query', {
  params: { path: { agentId: agent.id } },
  body: { query: 'parking', topics: ['visit'], limit: 3 },
});
if (asked.ok) console.log(asked.data.passages.map((p) => p.score));
// @ts-expect-error TS2322 a misspelt optional field: `topic` is no field of a query (`topics` is)
await api.POST('/v1/agents/{agentId}/query', { params: { path: { agentId: agent.id } }, body: { query: 'parking', topic: ['visit'] } });
// @ts-expect-error TS2322 a misspelt optional field inside another: `descripton`
await api.POST('/v1/agents', { body: { name: 'Ada', identity: { businessName: 'Acme', descripton: 'Sells anvils' } } });
// @ts-expect-error TS2561 a misspelt query parameter: `limt` (did you mean `limit`?)
await api.GET('/v1/agents', { params: { query: { limt: 10 } } });

// The untyped calls answer `unknown`: narrow, or name the type.
const untyped: ApiResponse = await api.get('/v1/me');
// @ts-expect-error TS18046 an untyped body is `unknown`
console.log(untyped.body.scopes);
const body = untyped.body;
if (typeof body === 'object' && body !== null && 'scopes' in body) console.log(body.scopes);
const named = await api.get<Agent>(`/v1/agents/${agent.id}`);
console.log(named.body.identity.businessName);

// The vitest helper: the same client as `ctx.api`, one without a key as `ctx.control`.
const ctx = setupEmulator({ seed: 1 });
it('creates an agent', async () => {
  const res = await ctx.api.POST('/v1/agents', { body: { name: 'Ada', identity: { businessName: 'Acme' } } });
  if (res.status !== 201) throw new Error(res.error.detail);
  const again = await ctx.api.GET('/v1/agents/{agentId}', { params: { path: { agentId: res.data.id } } });
  expect(again.ok && again.data.name).toBe('Ada');
  const mine = await ctx.api.GET('/v1/me');
  if (mine.ok) expect(mine.data.workspaceId).toBe(ctx.workspace.workspaceId);
  await ctx.control.PATCH('/_emulator/workspaces/{workspaceId}', { params: { path: { workspaceId } }, body: { dailyActivityCap: 1 } });
  const loose = await ctx.api.get(`/v1/agents/${res.data.id}`);
  // @ts-expect-error TS18046 an untyped body is `unknown`
  expect(loose.body.name).toBe('Ada');
  // @ts-expect-error TS2322 `dailyActivityCap` is a number
  await ctx.control.PATCH('/_emulator/workspaces/{workspaceId}', { params: { path: { workspaceId } }, body: { dailyActivityCap: 'one' } });
});
// @ts-expect-error TS2561 `sed` is not an option of the vitest helper either
setupEmulator({ sed: 1 });

// The MSW adapter: the app's calls to the production URL reach the emulator; the
// package's client pointed at that URL goes through the same handlers, typed the same.
const PRODUCTION_API = 'https://api.example.com';
const server = setupServer(...emulatorHandlers(emulator, { baseUrl: PRODUCTION_API }));
server.listen({ onUnhandledRequest: 'error' });
const viaMsw = createClient(PRODUCTION_API, apiKey.secret);
const meViaMsw = await viaMsw.GET('/v1/me');
if (meViaMsw.ok) console.log(meViaMsw.data.scopes.includes('landings:write'));
// @ts-expect-error TS2345 the handlers need the base URL the app calls
emulatorHandlers(emulator, {});
server.close();

// The generated types describe every path.
const path: keyof paths = '/v1/agents/{agentId}';
console.log(raw.status, relative.status, now, ran, names, path);
await emulator.close();
