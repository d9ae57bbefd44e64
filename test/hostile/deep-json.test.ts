import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import type { RouteDoc } from '../../src/platform/openapi.js';
import { charCount, findUnsafeValue, MAX_JSON_DEPTH } from '../../src/platform/validation.js';
import { send } from '../support/client.js';
import { quiet } from '../support/emulator.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 8);
const TOO_DEEP = `must not nest deeper than ${MAX_JSON_DEPTH} levels`;

let emulator: Emulator;
let key: string;
let site: string;

beforeAll(async () => {
  emulator = await createEmulator({ seed: 97, log: quiet });
  const ws = await emulator.createWorkspace();
  key = ws.apiKey.secret;
  const auth = { key, headers: { 'content-type': 'application/json' } };
  const agent = (await send(emulator, 'POST', '/v1/agents', { ...auth, body: { name: 'Deep', identity: { businessName: 'D' } } })).body;
  const project = (await send(emulator, 'POST', '/v1/projects', { ...auth, body: { name: 'Deep', slug: 'deep-json' } })).body;
  const page = (
    await send(emulator, 'POST', `/v1/projects/${project.id}/pages`, { ...auth, body: { name: 'Home', kind: 'agent', path: '/', agentId: agent.id } })
  ).body;
  expect((await send(emulator, 'POST', `/v1/pages/${page.id}/publish`, { key })).status).toBe(200);
  site = 'http://deep-json.localhost';
  return () => emulator.close();
});

function stateWithoutMeters(doc: { tables: Record<string, unknown[]> }): string {
  const { activity: _meter, ...tables } = doc.tables;
  return JSON.stringify(tables);
}

/** JSON text nested `depth` containers deep, built as text (no recursion anywhere). */
function nested(depth: number, shape: 'array' | 'object' | 'mixed'): string {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    const array = shape === 'array' || (shape === 'mixed' && i % 2 === 0);
    open += array ? '[' : '{"k":';
    close = (array ? ']' : '}') + close;
  }
  return `${open}1${close}`;
}

const deepBody = fc.record({
  depth: fc.oneof(fc.integer({ min: MAX_JSON_DEPTH + 1, max: 200 }), fc.integer({ min: 5_000, max: 12_000 })),
  shape: fc.constantFrom('array' as const, 'object' as const, 'mixed' as const),
  at: fc.constantFrom('root', 'name', 'identity.businessName'),
});

function place(text: string, at: string): string {
  if (at === 'root') return text;
  return at.split('.').reduceRight((inner, field) => `{"${field}":${inner}}`, text);
}

const jsonRoutes = (): RouteDoc[] => emulator.openapi.routes.filter((r) => r.body && r.bodyKind !== 'multipart');

describe('JSON nested too deep', () => {
  it('every route that reads JSON (/v1, console, control plane) answers 400 with its own code, never 500, and changes nothing', async () => {
    const routes = jsonRoutes();
    const paths = routes.map((r) => r.path);
    for (const expected of ['/v1/agents', '/workspaces/:tenantId/keys', '/_emulator/workspaces', '/_emulator/state', '/_emulator/web'])
      expect(paths).toContain(expected);
    for (const route of routes) {
      const path = route.path.replace(/:([A-Za-z0-9_]+)/g, 'x');
      const before = stateWithoutMeters(await emulator.exportState());
      await fc.assert(
        fc.asyncProperty(deepBody, async ({ depth, shape, at }) => {
          const body = place(nested(depth, shape), at);
          const res = await send(emulator, route.method, path, { key, body, headers: { 'content-type': 'application/json' } });
          const where = `${route.method} ${route.path} ${shape} ${depth} at ${at}`;
          expect(res.status, `${where}: ${res.text.slice(0, 200)}`).toBe(400);
          expect(res.body.code, where).toBe(route.invalid ?? 'svc.request.validation_failed');
          expect(res.body.errors[0].reason, where).toBe(TOO_DEEP);
          expect(res.body.errors[0].field.startsWith(at === 'root' ? (shape === 'object' ? 'k' : '0') : at), where).toBe(true);
        }),
        { numRuns: RUNS, seed: 20261123 },
      );
      expect(stateWithoutMeters(await emulator.exportState()), route.path).toBe(before);
    }
  }, 300_000);

  it("the limit is 64 levels: 64 reach the route's own validation, 65 are refused", async () => {
    // 64 containers in all: the body object and 63 below `name`.
    const at64 = await send(emulator, 'POST', '/v1/agents', { key, body: place(nested(63, 'array'), 'name'), headers: { 'content-type': 'application/json' } });
    expect(at64.status).toBe(400);
    expect(at64.body.errors[0].reason).not.toBe(TOO_DEEP);
    const at65 = await send(emulator, 'POST', '/v1/agents', { key, body: place(nested(64, 'array'), 'name'), headers: { 'content-type': 'application/json' } });
    expect(at65.body.errors[0].reason).toBe(TOO_DEEP);
    // A state document may be deep enough for its own shape and no deeper.
    const state = await emulator.exportState();
    expect((await send(emulator, 'PUT', '/_emulator/state', { body: state })).status).toBe(200);
  });

  it("the hosted sites' chat refuses it too", async () => {
    for (const shape of ['array', 'object'] as const) {
      const res = await send(emulator, 'POST', `${site}/_site/chat`, { body: nested(6_000, shape), headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('svc.request.validation_failed');
      expect(res.body.errors[0].reason).toBe(TOO_DEEP);
    }
  });

  it('a deep JSON array in a multipart field is refused as the wrong type, not walked', async () => {
    const form = new FormData();
    form.set('file', new File(['Hours: nine to five.'], 'hours.txt', { type: 'text/plain' }));
    form.set('topics', nested(6_000, 'array'));
    const res = await send(emulator, 'POST', '/v1/knowledge/uploads', { key, body: form });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('svc.knowledge.source_invalid');
    expect(res.body.errors[0].field).toBe('topics.0');
  });
});

/** A recursive reference, fine for the shallow values fast-check generates. */
function referenceProblem(value: unknown, depth = 0): 'deep' | 'surrogate' | undefined {
  if (typeof value === 'string') return value.isWellFormed() ? undefined : 'surrogate';
  if (value === null || typeof value !== 'object') return undefined;
  if (depth + 1 > MAX_JSON_DEPTH) return 'deep';
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  for (const [k, v] of entries) {
    if (!k.isWellFormed()) return 'surrogate';
    const found = referenceProblem(v, depth + 1);
    if (found) return found;
  }
  return undefined;
}

const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u));
const anyText = fc.string({ unit: fc.oneof(anyUnit, fc.constantFrom('a', '\uD83D\uDE00', '\uD800', '\uDC00')), maxLength: 12 });

describe('the walk behind it', () => {
  it('never recurses: a value 200,000 levels deep is judged without overflowing the stack', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = i % 2 ? [deep] : { k: deep };
    expect(findUnsafeValue(deep)?.reason).toBe(TOO_DEEP);
  });

  it('finds exactly the problems a recursive reference finds, lone surrogates in keys and values included', () => {
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', maxDepth: 70 },
        anyText,
        fc.integer(),
        fc.constant(null),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(anyText, tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const found = findUnsafeValue(v);
        const expected = referenceProblem(v);
        expect(found === undefined).toBe(expected === undefined);
      }),
      { numRuns: 500, seed: 20261124 },
    );
  });

  it('counts code points like the string iterator does, for any UTF-16 text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(anyUnit, fc.constant('\uD83D\uDE00')), maxLength: 50 }), (s) => charCount(s) === [...s].length),
      { numRuns: 1000, seed: 20261125 },
    );
  });
});
