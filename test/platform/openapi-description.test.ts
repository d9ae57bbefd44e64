import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { ChatModel } from '../../src/chat/chat-model.js';
import { createAgent, ingest, readEvents, streamRequest } from '../agents/support.js';
import { send } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';

const failing: ChatModel = {
  id: 'fails-after-two-tokens',
  reply: () => ({
    tokens: (async function* () {
      yield 'one ';
      yield 'two ';
      throw new Error('model crashed');
    })(),
  }),
};

const emulator = await fileEmulator({ seed: 3 });
const broken = await fileEmulator({ seed: 3, chatModel: failing });
const doc = (await send(emulator, 'GET', '/v1/openapi.json')).body;
const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ path, method, op })),
);
const op = (method: string, path: string) => doc.paths[path][method];

/** A validator for a schema of the document (its `$ref`s resolved against it). */
function validator(schema: object) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, formats: { uri: true, binary: true } });
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  return ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')));
}

describe('the OpenAPI description types every answer', () => {
  it('names every record once, as a component a person would name', () => {
    const names = Object.keys(doc.components.schemas);
    for (const name of [
      'Agent',
      'AgentList',
      'Source',
      'SourceList',
      'TopicCount',
      'Project',
      'ProjectList',
      'Page',
      'PageList',
      'Asset',
      'AssetList',
      'Theme',
      'Brand',
      'BrandFile',
      'Usage',
      'Key',
      'KeyCreated',
      'KeyList',
      'Identity',
      'Problem',
      'ChatAnswer',
      'ChatEvent',
      'Passage',
      'QueryResult',
      'Workspace',
      'WorkspaceList',
      'CreatedWorkspace',
      'Clock',
      'Fault',
      'QueuedJob',
      'Queue',
      'StateDocument',
    ]) {
      expect(names, name).toContain(name);
    }
    expect(doc.components.schemas.AgentList.properties.data.items).toEqual({ $ref: '#/components/schemas/Agent' });
    expect(doc.components.schemas.QueryResult.properties.passages.items).toEqual({ $ref: '#/components/schemas/Passage' });
    // A request form that differs from the answer's is its own component.
    expect(op('post', '/v1/agents').requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/AgentCreate' });
  });

  it('refers to a component for every JSON success answer and every request body', () => {
    const isRef = (schema: any): boolean => typeof schema?.$ref === 'string' || (Array.isArray(schema?.anyOf) && schema.anyOf.every(isRef));
    const inline: string[] = [];
    for (const { path, method, op: operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        const json = response.content?.['application/json'];
        if (status.startsWith('2') && json && !isRef(json.schema)) inline.push(`${method} ${path} ${status}`);
      }
      for (const [type, media] of Object.entries((operation.requestBody?.content ?? {}) as Record<string, any>)) {
        if (!isRef(media.schema) && path !== '/_emulator/state') inline.push(`${method} ${path} body ${type}`);
      }
    }
    expect(inline).toEqual([]);
  });

  it('gives each operation a unique name a person would write', () => {
    const ids = operations.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z]+(?:[A-Z][a-z]+)*$/);
    expect(op('post', '/v1/agents').operationId).toBe('createAgent');
    expect(op('get', '/v1/agents/{agentId}').operationId).toBe('getAgent');
    expect(op('get', '/v1/knowledge/sources').operationId).toBe('listSources');
    expect(op('post', '/v1/agents/{agentId}/chat').operationId).toBe('chat');
    expect(op('post', '/v1/agents/{agentId}/query').operationId).toBe('query');
    expect(op('post', '/v1/assets').operationId).toBe('uploadAsset');
    expect(op('get', '/files/{assetId}').operationId).toBe('getFile');
    expect(op('post', '/_emulator/workspaces').operationId).toBe('createWorkspace');
  });

  it('types integer parameters as integers and describes every path parameter', () => {
    for (const { path, method, op: operation } of operations) {
      for (const parameter of operation.parameters) {
        if (parameter.in === 'path') expect(parameter.description, `${method} ${path} ${parameter.name}`).toMatch(/\w/);
        if (parameter.name === 'limit') expect(parameter.schema.type, `${method} ${path} limit`).toBe('integer');
      }
    }
    const limit = op('get', '/v1/agents').parameters.find((p: any) => p.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } });
    const agentId = op('get', '/v1/agents/{agentId}').parameters.find((p: any) => p.name === 'agentId');
    expect(agentId).toMatchObject({ in: 'path', required: true, description: 'Id of the agent (`agt_...`)' });
    const slot = op('put', '/v1/projects/{projectId}/brand/{slot}').parameters.find((p: any) => p.name === 'slot');
    expect(slot.schema.enum).toEqual(['logo', 'logo-dark', 'favicon']);
  });

  it('declares the headers every answer carries, rate limits on /v1, Retry-After on 429, replays on idempotent POSTs', () => {
    for (const { path, method, op: operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        const where = `${method} ${path} ${status}`;
        expect(response.headers['x-request-id'], where).toEqual({ $ref: '#/components/headers/RequestId' });
        const gated = path.startsWith('/v1/') && path !== '/v1/openapi.json';
        // 401 has no key, and a 500, a 503 or an injected fault (`default`) may come before the gate counted the request.
        expect(Boolean(response.headers.RateLimit), where).toBe(gated && !['401', '500', '503', 'default'].includes(status));
        expect(Boolean(response.headers['Retry-After']), where).toBe(gated && status === '429');
        // Every problem document is sent with nosniff (D-872).
        const problem =
          Object.keys(response.content ?? {}).some((type) => type === 'application/problem+json') ||
          ((status === 'default' || Number(status) >= 400) && path.startsWith('/workspaces/'));
        expect(response.headers['X-Content-Type-Options'], where).toEqual(problem ? { $ref: '#/components/headers/XContentTypeOptions' } : undefined);
      }
    }
    expect(doc.components.headers.XContentTypeOptions).toMatchObject({ required: true, schema: { const: 'nosniff' } });
    expect(Object.keys(op('post', '/v1/projects').responses['201'].headers)).toContain('Idempotent-Replayed');
    expect(Object.keys(op('get', '/v1/projects').responses['200'].headers)).not.toContain('Idempotent-Replayed');
    expect(op('post', '/v1/projects').parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }));
    expect(doc.components.headers.RateLimit).toMatchObject({ required: true, schema: { type: 'string' } });
    expect(doc.components.headers.RetryAfter).toMatchObject({ required: false, schema: { type: 'integer', minimum: 1 } });
  });

  it('declares a replayed answer as it is sent: Idempotent-Replayed: true, the first answer again', async () => {
    const { api } = await workspace(emulator);
    const headers = { 'idempotency-key': 'k-1' };
    const first = await api.post('/v1/projects', { name: 'Replayed' }, headers);
    const again = await api.post('/v1/projects', { name: 'Replayed' }, headers);
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(validator(doc.components.headers.IdempotentReplayed.schema)(again.headers.get('idempotent-replayed'))).toBe(true);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
  });

  it('declares /files/{assetId} in the types it serves, and its problems as application/problem+json', () => {
    const file = op('get', '/files/{assetId}');
    const served = Object.keys(file.responses['200'].content);
    expect(served).toEqual(
      expect.arrayContaining(['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/avif', 'image/svg+xml', 'image/x-icon', 'video/mp4', 'video/webm']),
    );
    expect(served).not.toContain('application/octet-stream');
    expect(Object.keys(file.responses['403'].content)).toEqual(['application/problem+json']);
    expect(Object.keys(file.responses['200'].headers)).toEqual(expect.arrayContaining(['ETag', 'Cache-Control']));
    // The console routes send their problems as plain JSON (API.md, Errors).
    expect(Object.keys(op('post', '/workspaces/{tenantId}/keys').responses['404'].content)).toEqual(['application/json']);
  });

  it('declares the streamed chat beside JSON, with its grammar and the schema of each event', () => {
    const chat = op('post', '/v1/agents/{agentId}/chat').responses['200'].content;
    expect(Object.keys(chat)).toEqual(['application/json', 'text/event-stream']);
    const stream = chat['text/event-stream'];
    expect(stream.schema.description).toContain('stream = start *token ( done / error )');
    expect(stream['x-events']).toEqual({
      start: { $ref: '#/components/schemas/ChatStarted' },
      token: { $ref: '#/components/schemas/ChatToken' },
      done: { $ref: '#/components/schemas/ChatAnswer' },
      error: { $ref: '#/components/schemas/Problem' },
    });
    expect(stream['x-itemSchema']).toEqual({ $ref: '#/components/schemas/ChatEvent' });
  });

  it('a streamed turn follows the declared grammar and each event validates against its schema, the error event too', async () => {
    const events = doc.paths['/v1/agents/{agentId}/chat'].post.responses['200'].content['text/event-stream']['x-events'];
    const item = validator({ $ref: '#/components/schemas/ChatEvent' });
    const check = (stream: { event: string; data: unknown }[]) => {
      for (const { event, data } of stream) {
        const valid = validator(events[event]);
        expect(valid(data), `${event}: ${JSON.stringify(valid.errors)}`).toBe(true);
        expect(item({ event, data }), `ChatEvent ${event}`).toBe(true);
      }
      // start *token ( done / error )
      expect(stream.map((e) => e.event[0]).join('')).toMatch(/^st*[de]$/);
    };
    for (const [target, last] of [
      [emulator, 'done'],
      [broken, 'error'],
    ] as const) {
      const ws = await workspace(target);
      const agentId = await createAgent(ws.api);
      // Knowledge to find: with nothing found the model is not asked (D-303), so no error event.
      await ingest(ws.api, ws.control, [{ title: 'Delivery', text: 'We deliver every day, Sundays too.', agentId }]);
      const res = await streamRequest(target, ws.key, agentId, { message: 'Do you deliver on Sundays?' });
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const stream = await readEvents(res);
      expect(stream.at(-1)!.event).toBe(last);
      check(stream);
    }
  });
});
