import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import { ERROR_CODES, isErrorCode } from '../../src/platform/error-codes.js';
import type { RouteDoc } from '../../src/platform/openapi.js';
import { quiet } from '../support/emulator.js';
import { send } from '../support/client.js';
import { knownIds, seedEverything } from './seed.js';
import { expectMatchesOpenApi } from '../support/openapi.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const TIMEOUT_MS = 5_000;

let emulator: Emulator;
const openapi = () => emulator.openapi.document() as { paths: Record<string, unknown> };
let key: string;
let ids: Record<string, string[]>;

beforeAll(async () => {
  emulator = await createEmulator({ seed: 99, log: quiet });
  const seeded = await seedEverything(emulator);
  key = seeded.key;
  ids = await knownIds(emulator, seeded);
  return () => emulator.close();
});

/**
 * The state, minus the daily activity meter: CONTRACT counts every authenticated
 * request as activity, refused ones included.
 */
function stateWithoutMeters(doc: { tables: Record<string, unknown[]> }): string {
  const { activity: _meter, ...tables } = doc.tables;
  return JSON.stringify(tables);
}

/** Routes a client may call; the control plane is the operator's, not a client's. */
const clientRoutes = (): RouteDoc[] => emulator.openapi.routes.filter((r) => !r.path.startsWith('/_emulator'));

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const nasty = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  '%',
  '%2e%2e',
  '../',
  '..',
  '\u202e',
  'a'.repeat(3000),
  '{"',
  '[]',
  'null',
  '-1',
  '1e309',
  'NaN',
  '😀',
  '<script>',
  "' OR 1=1 --",
  '__proto__',
  'constructor',
);
const segment = fc.oneof(fc.string({ maxLength: 40 }), nasty, fc.constantFrom('agt_01kdvdna00act2z7dhdayzw94y', 'ws_x', 'prj_', 'pg_0'));

function pathFor(route: RouteDoc, pick: (name: string) => string): string {
  return route.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(pick(name)));
}

/** Mutates a valid-looking object: drop, retype or inflate one field. */
const mutated = (base: Record<string, unknown>) =>
  fc.tuple(fc.constantFrom(...Object.keys(base).concat(['__proto__', 'extra'])), fc.oneof(jsonValue, nasty, fc.constant(undefined))).map(([k, val]) => {
    const copy: Record<string, unknown> = JSON.parse(JSON.stringify(base));
    if (val === undefined) delete copy[k];
    else copy[k] = val;
    return copy;
  });

const requestArb = (route: RouteDoc) =>
  fc
    .record({
      useKnownIds: fc.boolean(),
      segments: fc.array(segment, { minLength: 4, maxLength: 4 }),
      body: fc.oneof(
        jsonValue,
        mutated({
          name: 'A',
          identity: { businessName: 'B' },
          title: 't',
          text: 'x',
          url: 'https://example.com',
          slug: 'abc',
          path: '/x',
          kind: 'document',
          tokens: {},
        }),
        fc.constant(undefined),
      ),
      rawBody: fc.option(fc.oneof(nasty, fc.string({ maxLength: 200 })), { nil: undefined }),
      contentType: fc.constantFrom('application/json', 'text/plain', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', undefined),
      query: fc.dictionary(fc.constantFrom('limit', 'after', 'before', 'agentId', 'x'), fc.oneof(fc.string({ maxLength: 30 }), nasty), { maxKeys: 3 }),
      auth: fc.constantFrom('valid', 'valid', 'valid', 'none', 'garbage', 'wrong-checksum'),
      language: fc.constantFrom('es', 'en', 'fr', '*', 'es;q=0', undefined),
      idempotencyKey: fc.option(fc.oneof(fc.string({ maxLength: 10 }), fc.constant('k'.repeat(300))), { nil: undefined }),
    })
    .map((g) => ({ route, ...g }));

type Generated = ReturnType<typeof requestArb> extends fc.Arbitrary<infer T> ? T : never;

async function fire(g: Generated) {
  const pick = (name: string) => {
    const known = ids[name];
    return g.useKnownIds && known?.length ? known[0]! : g.segments[name.length % 4]!;
  };
  const query = new URLSearchParams(g.query).toString();
  const path = pathFor(g.route, pick) + (query ? `?${query}` : '');
  const headers: Record<string, string> = {};
  if (g.auth === 'valid') headers.authorization = `Bearer ${key}`;
  if (g.auth === 'garbage') headers.authorization = 'Bearer svc_test_garbage';
  if (g.auth === 'wrong-checksum') headers.authorization = `Bearer ${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
  if (g.language) headers['accept-language'] = g.language;
  if (g.idempotencyKey !== undefined) headers['idempotency-key'] = g.idempotencyKey.replace(/[^\x20-\x7e]/g, '') || 'k';
  if (g.contentType) headers['content-type'] = g.contentType;
  const body = g.route.method === 'GET' ? undefined : (g.rawBody ?? (g.body === undefined ? undefined : JSON.stringify(g.body)));
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), TIMEOUT_MS).unref());
  const res = await Promise.race([send(emulator, g.route.method, path, { headers, ...(body !== undefined && { body }) }), timeout]);
  return { res, path };
}

describe('hostile input on every client route', () => {
  it('never answers 500 or hangs; every refusal is a registered problem and changes nothing', async () => {
    const routes = clientRoutes();
    expect(routes.length).toBeGreaterThan(5);
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(requestArb(route), async (g) => {
          const before = stateWithoutMeters(await emulator.exportState());
          const { res, path } = await fire(g);
          const where = `${route.method} ${path}`;
          expect(res, `${where} hung`).not.toBe('timeout');
          if (res === 'timeout') return;
          expect(res.status, `${where} answered ${res.status}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
          // Whatever a route answers, its OpenAPI description declares (2xx with the schema).
          const template = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
          const declared =
            (openapi().paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)[template]?.[route.method.toLowerCase()]?.responses ??
            {};
          expect(Object.keys(declared), `${where} answered ${res.status} ${res.body?.code ?? ''}, undeclared in OpenAPI`).toContain(String(res.status));
          if (res.status < 300 && (res.headers.get('content-type') ?? '').includes('json'))
            expectMatchesOpenApi(openapi() as never, route.method, template, res.status, res.body);
          if (res.status >= 400) {
            expect(isErrorCode(res.body?.code), `${where}: ${res.text.slice(0, 200)}`).toBe(true);
            const spec = ERROR_CODES[res.body.code as keyof typeof ERROR_CODES];
            if (res.body.code !== 'svc.idempotency.conflict') expect(res.body.status).toBe(spec.status);
            expect(res.body.status).toBe(res.status);
            expect(res.body.title).toBe(spec.title);
            expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
            expect(res.text).not.toMatch(/\bat .+:\d+:\d+\)?$|node_modules|SQLITE_|syntax error/m);
            const after = stateWithoutMeters(await emulator.exportState());
            expect(after === before, `${where} ${res.status} ${res.body.code} changed the state`).toBe(true);
          }
        }),
        { numRuns: RUNS, seed: 20261121 },
      );
    }
  }, 600_000);

  it('the control plane never answers 500 either; its refusals are registered problems and change nothing', async () => {
    // The workspace is a fixture, so that `reset` restores it.
    const operator = await createEmulator({ seed: 98, log: quiet, fixtures: { workspaces: [{ name: 'control', keys: [{ name: 'k', scopes: 'all' }] }] } });
    try {
      const workspaceId = operator.fixtureKeys[0]!.workspaceId;
      const pick = (name: string, g: Generated) => (g.useKnownIds && name === 'workspaceId' ? workspaceId : g.segments[name.length % 4]!);
      const routes = operator.openapi.routes.filter((r) => r.path.startsWith('/_emulator'));
      const baseline = stateWithoutMeters(await operator.exportState());
      for (const route of routes) {
        await fc.assert(
          fc.asyncProperty(requestArb(route), async (g) => {
            const before = stateWithoutMeters(await operator.exportState());
            const query = new URLSearchParams(g.query).toString();
            const path = pathFor(route, (n) => pick(n, g)) + (query ? `?${query}` : '');
            const body = route.method === 'GET' ? undefined : (g.rawBody ?? (g.body === undefined ? undefined : JSON.stringify(g.body)));
            const headers: Record<string, string> = g.contentType ? { 'content-type': g.contentType } : {};
            const res = await send(operator, route.method, path, { headers, ...(body !== undefined && { body }) });
            expect(res.status, `${route.method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
            if (res.status >= 400) {
              expect(isErrorCode(res.body?.code), `${route.method} ${path}: ${res.text.slice(0, 200)}`).toBe(true);
              expect(stateWithoutMeters(await operator.exportState()), `${route.method} ${path} ${res.status} changed the state`).toBe(before);
            } else {
              // An accepted operation (a reset, a fault, a clock move...) is undone for the next run.
              await operator.reset();
              await operator.setWeb({ pages: [] });
              expect(stateWithoutMeters(await operator.exportState())).toBe(baseline);
            }
          }),
          { numRuns: RUNS, seed: 20261122 },
        );
      }
    } finally {
      await operator.close();
    }
  }, 600_000);
});
