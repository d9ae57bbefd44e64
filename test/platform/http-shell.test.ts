import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { createApp } from '../../src/app.js';
import { openStore } from '../../src/db/database.js';
import { EmulatedClock } from '../../src/platform/clock.js';
import { ERROR_CODES } from '../../src/platform/error-codes.js';
import { createIdGenerator } from '../../src/platform/ids.js';
import { resolveSettings } from '../../src/platform/settings.js';
import { createService } from '../../src/service.js';
import { send } from '../support/client.js';
import { API_MD_CODES } from './api-codes.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { openTestStore } from '../support/store.js';

const emulator = await fileEmulator({ seed: 7 });
const { api, key } = await workspace(emulator);

describe('problem documents', () => {
  it('have every RFC 9457 field, the registry title and a type under the docs URL', async () => {
    const res = await api.get('/v1/agents/agt_missing');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toEqual({
      type: 'http://localhost/docs/errors/svc.agent.not_found',
      title: 'Agent not found',
      status: 404,
      detail: 'No such agent in this workspace.',
      instance: '/v1/agents/agt_missing',
      code: 'svc.agent.not_found',
      requestId: res.headers.get('x-request-id'),
    });
  });

  it('name the path as it was sent in instance, percent-encoding kept: a URI reference (D-1166)', async () => {
    for (const path of ['/v1/projects/a%20b', '/v1/projects/%00', '/v1/projects/%E2%82%AC', '/v1/projects/a%2Fb', '/v1/projects/%41']) {
      const res = await api.get(`${path}?limit=5`);
      expect(res.status, path).toBe(404);
      expect(res.body.instance).toBe(path);
    }
  });

  it('answer a NUL (%00) in a path id as an unknown resource, and in a query value as a bad field: PostgreSQL refused it with a 500 (D-1175)', async () => {
    const missing = await api.get('/v1/agents/agt%00x');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('svc.agent.not_found');
    const listed = await api.get('/v1/knowledge/sources?agentId=%00');
    expect(listed.status).toBe(400);
    expect(listed.body.errors).toEqual([{ field: 'agentId', reason: 'must not hold a NUL character (%00)' }]);
  });

  it('say detail in Spanish when Accept-Language prefers es, title stays English', async () => {
    const es = await api.get('/v1/agents/agt_missing', { 'accept-language': 'es-ES,es;q=0.9,en;q=0.5' });
    expect(es.body.detail).toBe('No existe ese agente en este espacio de trabajo.');
    expect(es.body.title).toBe('Agent not found');
    const en = await api.get('/v1/agents/agt_missing', { 'accept-language': 'es;q=0.4, en;q=0.8' });
    expect(en.body.detail).toBe('No such agent in this workspace.');
    // Whitespace around `;` is allowed (RFC 9110, 12.4.2: OWS ";" OWS "q=").
    for (const header of ['es ; q=1', 'en;q=0.5, es ;q=0.9']) {
      expect((await api.get('/v1/agents/agt_missing', { 'accept-language': header })).body.detail, header).toBe(
        'No existe ese agente en este espacio de trabajo.',
      );
    }
  });

  it('registry holds exactly the codes API.md lists, each with its status', () => {
    const registry = Object.fromEntries(Object.entries(ERROR_CODES).map(([code, spec]) => [code, spec.status]));
    expect(registry).toEqual(API_MD_CODES);
  });

  it('name each invalid field in errors with a dotted path', async () => {
    const res = await api.post('/v1/agents', { name: 'x'.repeat(81), identity: { businessName: '', extra: 1 } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('svc.agent.invalid');
    expect(res.body.errors).toEqual([
      { field: 'name', reason: 'must be 1 to 80 characters' },
      { field: 'identity.businessName', reason: 'must be 1 to 120 characters' },
      { field: 'identity.extra', reason: 'unknown field' },
    ]);
  });

  it('refuse an array where an object belongs, at any depth', async () => {
    const top = await api.post('/v1/agents', []);
    expect(top.body.errors).toEqual([{ field: '(body)', reason: 'must be an object' }]);
    const nested = await api.post('/v1/agents', { name: 'A', identity: [] });
    expect(nested.status).toBe(400);
    expect(nested.body.errors).toEqual([{ field: 'identity', reason: 'must be an object' }]);
    const agent = (await api.post('/v1/agents', { name: 'A', identity: { businessName: 'B' } })).body;
    expect((await api.patch(`/v1/agents/${agent.id}`, [])).status).toBe(400);
  });

  it("say in plain words what type a field must be, never the validator's own phrase", async () => {
    const res = await api.post('/v1/agents', { name: 5, identity: { businessName: true } });
    expect(res.status).toBe(400);
    const reasons = Object.fromEntries(res.body.errors.map((e: { field: string; reason: string }) => [e.field, e.reason]));
    expect(reasons.name).toBe('must be a string');
    expect(reasons['identity.businessName']).toBe('must be a string');
    expect(res.body.errors.map((e: { reason: string }) => e.reason).join(' ')).not.toMatch(/Invalid type|Expected|received/);
    const none = await send(emulator, 'POST', '/v1/agents', { key, body: 'null', headers: { 'content-type': 'application/json' } });
    expect(none.body.errors).toEqual([{ field: '(body)', reason: 'must be an object' }]);
  });

  it("say a value's rule in plain words too: one of, at least, at most, an integer, how many items (D-1169)", async () => {
    const reasonsOf = async (method: string, path: string, body: unknown, withKey = false) => {
      const res = await send(emulator, method, path, { ...(withKey && { key }), body });
      expect(res.status, path).toBe(400);
      return Object.fromEntries(res.body.errors.map((e: { field: string; reason: string }) => [e.field, e.reason]));
    };
    const { workspaceId } = await emulator.createWorkspace();
    expect(await reasonsOf('PATCH', `/_emulator/workspaces/${workspaceId}`, { rateLimit: { limit: 1, windowSeconds: 100_000 } })).toEqual({
      'rateLimit.windowSeconds': 'must be at most 86400',
    });
    expect(await reasonsOf('PATCH', `/_emulator/workspaces/${workspaceId}`, { credits: -1 })).toEqual({ credits: 'must be at least 0' });
    expect(await reasonsOf('PATCH', `/_emulator/workspaces/${workspaceId}`, { credits: 1.5 })).toEqual({ credits: 'must be an integer' });
    expect(await reasonsOf('POST', '/_emulator/faults', { match: { method: 'HEAD' }, status: 500 })).toEqual({
      'match.method': 'must be GET, POST, PUT, PATCH or DELETE',
    });
    const topics = Array.from({ length: 13 }, (_, i) => `t${i}`);
    expect(await reasonsOf('POST', '/v1/knowledge/text', { title: 't', text: 'x', topics }, true)).toEqual({ topics: 'must have at most 12 items' });
  });
});

describe('request ids', () => {
  it('x-request-id on every answer, including 401 and unknown routes', async () => {
    for (const res of [await api.get('/v1/me'), await send(emulator, 'GET', '/v1/me'), await api.get('/v1/nowhere'), await send(emulator, 'GET', '/nowhere')]) {
      expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]{26}$/);
    }
  });
});

describe('request bodies', () => {
  it('malformed JSON is svc.request.invalid', async () => {
    const res = await send(emulator, 'POST', '/v1/agents', { key, body: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('svc.request.invalid');
  });

  it('JSON without Content-Type: application/json is svc.request.invalid', async () => {
    const body = JSON.stringify({ name: 'A', identity: { businessName: 'B' } });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await send(emulator, 'POST', '/v1/agents', { key, body, headers: { 'content-type': type } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('svc.request.invalid');
    }
    const ok = await send(emulator, 'POST', '/v1/agents', { key, body, headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(ok.status).toBe(201);
  });

  it('a JSON body over 1 MiB is 413 and creates nothing; exactly 1 MiB is read', async () => {
    const before = (await api.get('/v1/agents?limit=100')).body.data.length;
    const padded = (size: number) => {
      const base = JSON.stringify({ name: 'A', identity: { businessName: 'B', description: '' } });
      return base.replace('"description":""', `"description":"${' '.repeat(size - base.length)}"`);
    };
    const over = await send(emulator, 'POST', '/v1/agents', { key, body: padded(1024 * 1024 + 1), headers: { 'content-type': 'application/json' } });
    expect(over.status).toBe(413);
    expect(over.body.code).toBe('svc.request.payload_too_large');
    const at = await send(emulator, 'POST', '/v1/agents', { key, body: padded(1024 * 1024), headers: { 'content-type': 'application/json' } });
    // Read in full, then refused by the field rule (description at most 2000), not by size.
    expect(at.status).toBe(400);
    expect(at.body.code).toBe('svc.agent.invalid');
    expect((await api.get('/v1/agents?limit=100')).body.data.length).toBe(before);
  });
});

describe('a route that takes no body (D-1165)', () => {
  it('refuses one that is not JSON, or not empty, and changes nothing; no body, an empty one or {} is taken', async () => {
    const project = (await api.post('/v1/projects', { name: 'Bodies' })).body;
    const page = (await api.post(`/v1/projects/${project.id}/pages`, { name: 'Home', kind: 'document', path: '/' })).body;
    const publish = (body: string | undefined, type = 'application/json') =>
      send(emulator, 'POST', `/v1/pages/${page.id}/publish`, { key, ...(body !== undefined && { body }), headers: { 'content-type': type } });
    const refused: [string | undefined, string, string, unknown][] = [
      ['not json', 'application/json', 'svc.request.invalid', undefined],
      ['{"a":1}', 'text/plain', 'svc.request.invalid', undefined],
      ['{"status":"published"}', 'application/json', 'svc.request.validation_failed', [{ field: 'status', reason: 'unknown field' }]],
      ['[]', 'application/json', 'svc.request.validation_failed', [{ field: '(body)', reason: 'must be empty: this call takes no body' }]],
    ];
    for (const [body, type, code, errors] of refused) {
      const res = await publish(body, type);
      expect(res.status, body).toBe(400);
      expect(res.body.code).toBe(code);
      if (errors) expect(res.body.errors).toEqual(errors);
    }
    expect((await api.get(`/v1/pages/${page.id}`)).body.status).toBe('draft');
    for (const body of [undefined, '', '{}']) expect((await publish(body)).status).toBe(200);
    expect((await api.get(`/v1/pages/${page.id}`)).body.status).toBe('published');
  });
});

describe('unknown routes', () => {
  it('under /v1 answer 404 svc.resource.not_found after auth', async () => {
    expect((await send(emulator, 'GET', '/v1/nowhere')).status).toBe(401);
    const res = await api.get('/v1/nowhere');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('svc.resource.not_found');
    const wrongMethod = await api.put('/v1/agents', {});
    expect(wrongMethod.status).toBe(404);
    expect(wrongMethod.body.code).toBe('svc.resource.not_found');
  });
});

describe('unexpected failures', () => {
  it('become 500 svc.internal.error and leak nothing of the cause', async () => {
    const testStore = openTestStore();
    const store = await openStore(testStore.db);
    const clock = new EmulatedClock();
    const logged: unknown[] = [];
    const service = createService({
      db: store,
      clock,
      ids: createIdGenerator({ clock }),
      settings: resolveSettings({ secret: 's', log: (_m, e) => logged.push(e) }),
    });
    const { app } = createApp(service, {
      extend: (_app, router) =>
        router.add({ method: 'GET', path: '/boom', operationId: 'boom', summary: 'throws', tags: [], query: v.object({}), responses: {} }, () => {
          throw new Error('SQLITE_CONSTRAINT: secret table users at /srv/app.ts:12');
        }),
    });
    const res = await send({ request: (p, i) => app.request(p, i) }, 'GET', '/boom');
    expect(res.status).toBe(500);
    expect(res.body.code).toBe('svc.internal.error');
    expect(res.body.detail).toBe('An unexpected error occurred.');
    expect(res.text).not.toMatch(/SQLITE|secret|srv|app\.ts/);
    expect(logged).toHaveLength(1);
    await service.stop();
    await store.close();
    testStore.discard();
  });
});

// A schema of the description, its `$ref` to a component followed.
const component = (doc: any, schema: any) =>
  typeof schema.$ref === 'string' ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;

describe('OpenAPI', () => {
  it('GET /v1/openapi.json needs no key and describes every route, version 0.1.0', async () => {
    const res = await send(emulator, 'GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info.version).toBe('0.1.0');
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    for (const route of emulator.openapi.routes) {
      const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      expect(res.body.paths[path]?.[route.method.toLowerCase()], `${route.method} ${path}`).toBeDefined();
    }
    const create = res.body.paths['/v1/agents'].post;
    // The body is a named component (AgentCreate), referenced from the operation.
    const body = component(res.body, create.requestBody.content['application/json'].schema);
    expect(body.required).toEqual(['name', 'identity']);
    expect(create.responses['400'].content['application/problem+json']).toBeDefined();
    expect(res.body.paths['/workspaces/{tenantId}/keys'].post).toBeDefined();
  });

  it('a client reading it sees the request rules the server enforces', async () => {
    const doc = (await send(emulator, 'GET', '/v1/openapi.json')).body;
    const name = component(doc, doc.paths['/v1/agents'].post.requestBody.content['application/json'].schema).properties.name;
    expect(name).toMatchObject({ type: 'string', minLength: 1, maxLength: 80 });
    const limit = doc.paths['/v1/agents'].get.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', required: false });
  });
});
