// The types inside the service that keep routes and worker tasks honest, compiled by
// internal-types.test.ts (beside it). Each `@ts-expect-error` names the error it stands
// for: the test also compiles a copy without them and checks that exactly those lines
// fail so. Nothing here runs.
import * as v from 'valibot';
import { EXTRACT_WORKER } from '../../src/knowledge/pipeline/worker-ref.js';
import type { Router } from '../../src/platform/route.js';
import { workerModule, type WorkerPool } from '../../src/platform/worker-pool.js';

declare const router: Router;
declare const workers: WorkerPool;
const Thing = v.object({ id: v.string(), count: v.number() });
const ThingDeleted = v.object({ id: v.string(), deleted: v.literal(true) });
const spec = { operationId: 'thing', tags: ['Things'], summary: 'A thing' };

// A route's parameters come from its path; its answers from its declared responses.
router.add(
  { ...spec, method: 'GET', path: '/v1/things/:thingId/parts/:partId', params: { thingId: 'The thing', partId: 'The part' }, responses: { 200: { description: 'The thing', schema: Thing } } },
  ({ params }) => ({ status: 200, body: { id: `${params.thingId}/${params.partId}`, count: 1 } }),
);
router.add(
  { ...spec, method: 'GET', path: '/v1/things/:thingId', params: { thingId: 'The thing' }, responses: { 200: { description: 'The thing', schema: Thing } } },
  // @ts-expect-error TS2551 the path has no `thing` parameter (did you mean `thingId`?)
  ({ params }) => ({ status: 200, body: { id: params.thing, count: 1 } }),
);
router.add(
  // @ts-expect-error TS2741 every parameter of the path is described for the OpenAPI description
  { ...spec, method: 'GET', path: '/v1/things/:thingId', params: {}, responses: { 200: { description: 'The thing', schema: Thing } } },
  () => new Response(null, { status: 204 }),
);
router.add(
  { ...spec, method: 'POST', path: '/v1/things', responses: { 201: { description: 'The thing', schema: Thing } } },
  // @ts-expect-error TS2322 the route declares 201, not 200
  async () => ({ status: 200, body: { id: 'thg_1', count: 1 } }),
);
router.add(
  { ...spec, method: 'POST', path: '/v1/things', responses: { 201: { description: 'The thing', schema: Thing } } },
  // @ts-expect-error TS2322 a count is a number
  async () => ({ status: 201, body: { id: 'thg_1', count: 'one' } }),
);
router.add(
  { ...spec, method: 'DELETE', path: '/v1/things/:thingId', params: { thingId: 'The thing' }, responses: { 200: { description: 'Deleted', schema: ThingDeleted } } },
  async ({ params }) => ({ status: 200, body: { id: params.thingId, deleted: true as const } }),
);
router.add(
  { ...spec, method: 'GET', path: '/v1/things/:thingId/file', params: { thingId: 'The thing' }, responses: { 200: { description: 'The bytes', files: ['image/png'] } } },
  // @ts-expect-error TS2353 a status without a schema answers a Response, not JSON
  () => ({ status: 200, body: { id: 'thg_1' } }),
);

// Worker tasks are typed by their module: the name, the input and the result.
const bytes = new Uint8Array(4);
const isJson: Promise<boolean> = workers.run(EXTRACT_WORKER, 'isJson', bytes);
// @ts-expect-error TS2345 the module has no task `isJSON` (a renamed task fails here)
void workers.run(EXTRACT_WORKER, 'isJSON', bytes);
// @ts-expect-error TS2345 `isJson` takes bytes
void workers.run(EXTRACT_WORKER, 'isJson', 'text');
// @ts-expect-error TS2322 `isJson` answers a boolean
const wrong: Promise<string> = workers.run(EXTRACT_WORKER, 'isJson', bytes);
const untyped = workerModule(import.meta.url, 'extract.worker');
// @ts-expect-error TS2345 a module declared without its type runs no task
void workers.run(untyped, 'isJson', bytes);
void isJson;
void wrong;
