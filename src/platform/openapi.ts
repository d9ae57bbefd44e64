import * as v from 'valibot';
import type { JsonSchema } from '@valibot/to-json-schema';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';
import type { IdPrefix } from './ids.js';
import { headerComponents, responseHeaders, type HeaderDoc } from './openapi-headers.js';
import { SchemaCatalog, resolveRefs } from './openapi-schemas.js';
import { named } from './named-schema.js';
import { ProblemSchema } from './problem-schema.js';

type AnySchema = v.GenericSchema<unknown, unknown>;

export type { HeaderDoc } from './openapi-headers.js';

/** A `text/event-stream` form of an answer: its grammar, and the data of each event. */
export interface EventStreamDoc {
  /** The component that is the union of the events (`ChatEvent`): `{ event, data }`. */
  name: string;
  description: string;
  /** Event name → the schema of its `data` (JSON). */
  events: Record<string, AnySchema>;
}

export interface ResponseDoc {
  description: string;
  schema?: AnySchema;
  /** The media type of `schema`; defaults to `application/json`. */
  contentType?: string;
  /** Other media types the same answer comes in, chosen by `Accept` (text, no schema). */
  also?: string[];
  /** The media types of a file answer (bytes, no JSON). */
  files?: readonly string[];
  /** The answer as server-sent events, chosen by `Accept: text/event-stream`. */
  stream?: EventStreamDoc;
  /** Headers of this answer beyond those every route sends (`ETag`...). */
  headers?: Record<string, HeaderDoc>;
}

/** A path parameter: what it names, and its schema when it is not any string. */
export interface ParamDoc {
  description: string;
  schema?: AnySchema;
}

/** What the OpenAPI description needs to know of one route. */
export interface RouteDoc {
  method: string;
  path: string;
  summary: string;
  tags: string[];
  /** The name clients call it by (`createAgent`); unique in the description. */
  operationId: string;
  security: 'apiKey' | 'admin' | 'none';
  scope?: string | null | undefined;
  /** Every path parameter, by name. */
  params?: Record<string, string | ParamDoc> | undefined;
  query?: AnySchema | undefined;
  body?: AnySchema | undefined;
  bodyKind?: 'json' | 'multipart' | undefined;
  bodyRequired?: boolean | undefined;
  responses: Record<number, ResponseDoc>;
  errors?: ErrorCode[] | undefined;
  /** The code body validation failures use (`svc.project.invalid`...). */
  invalid?: ErrorCode | undefined;
  /** A retired route kept only to say so. */
  deprecated?: boolean | undefined;
  /** Whether `Idempotency-Key` applies (the router says). */
  idempotent?: boolean | undefined;
}

/** The description of a path parameter that holds an id: `Id of the agent (\`agt_...\`)`. */
export function idParam(what: string, prefix: IdPrefix): string {
  return `Id of the ${what} (\`${prefix}_...\`)`;
}

/** What `GET /v1/openapi.json` answers, as far as a client relies on it. */
export const OpenApiDocumentSchema = named(
  'OpenApiDocument',
  v.looseObject({
    openapi: v.string(),
    info: v.looseObject({ title: v.string(), version: v.string() }),
    paths: v.record(v.string(), v.record(v.string(), v.unknown())),
    components: v.record(v.string(), v.record(v.string(), v.unknown())),
  }),
);

/** The rendered OpenAPI document, as far as `OpenApiDocumentSchema` describes it. */
export type OpenApiDocument = v.InferOutput<typeof OpenApiDocumentSchema>;

const PATH_PARAM = /:([A-Za-z0-9_]+)/g;
/** The emulator's control plane: no fault applies there. */
const CONTROL_PLANE = '/_emulator/';
const BINARY = { type: 'string', format: 'binary' };

/** The problem codes a route can answer: its own, and what its features add. */
function problemCodes(route: RouteDoc): Map<number, ErrorCode[]> {
  const codes = new Set<ErrorCode>(route.errors ?? []);
  if (route.security === 'apiKey') {
    codes.add('svc.api_key.invalid').add('svc.rate_limit.exceeded').add('svc.usage.budget_exceeded');
    if (route.scope) codes.add('svc.api_key.scope_missing');
  }
  if (route.idempotent) codes.add('svc.idempotency.conflict').add('svc.request.validation_failed');
  // The control-plane guard: another origin's page or an unknown Host (403), the admin token (401).
  if (route.security === 'admin') codes.add('svc.auth.unauthorized').add('svc.auth.forbidden');
  // A route that reads the store answers 503 while a shared database is out of reach (D-206).
  if (route.security === 'apiKey' || route.security === 'admin') codes.add('svc.service.unavailable');
  if (route.query) codes.add('svc.request.validation_failed');
  // A route that takes no body still refuses one that is not empty JSON (D-1165).
  if (route.body || route.method !== 'GET')
    codes
      .add('svc.request.invalid')
      .add('svc.request.payload_too_large')
      .add(route.invalid ?? 'svc.request.validation_failed');
  // Any route may fail unexpectedly, and any route answers 503 while a shared database is
  // out of reach (the shell reads it before routing, D-206); a fault injects either (D-874).
  codes.add('svc.internal.error').add('svc.service.unavailable');
  const byStatus = new Map<number, ErrorCode[]>();
  const put = (status: number, code: ErrorCode) => byStatus.set(status, [...new Set([...(byStatus.get(status) ?? []), code])]);
  for (const code of codes) put(ERROR_CODES[code].status, code);
  // An idempotency conflict is 409 while the first request still runs.
  if (codes.has('svc.idempotency.conflict')) put(409, 'svc.idempotency.conflict');
  return new Map([...byStatus].sort((a, b) => a[0] - b[0]));
}

/**
 * Collects every route as it is registered and renders one OpenAPI 3.1 document from
 * the same valibot schemas that validate the requests. Named schemas (`named()`)
 * become components; every answer declares its media types and headers as sent.
 */
export class OpenApiRegistry {
  readonly #routes: RouteDoc[] = [];
  readonly #operationIds = new Set<string>();
  #cached: OpenApiDocument | undefined;
  #cachedJson: string | undefined;

  add(route: RouteDoc): void {
    if (this.#operationIds.has(route.operationId)) throw new Error(`OpenAPI: operationId ${route.operationId} is used twice`);
    for (const [, name] of route.path.matchAll(PATH_PARAM)) {
      if (!route.params?.[name!]) throw new Error(`OpenAPI: ${route.method} ${route.path} does not describe its path parameter ${name}`);
    }
    this.#operationIds.add(route.operationId);
    this.#routes.push(route);
    this.#cached = undefined;
    this.#cachedJson = undefined;
  }

  get routes(): readonly RouteDoc[] {
    return this.#routes;
  }

  document(): OpenApiDocument {
    this.#cached ??= this.#build();
    return this.#cached;
  }

  /** The document as `GET /v1/openapi.json` sends it, serialised once per set of routes. */
  json(): string {
    // 450 KB: serialising it took 3 of the 3.6 ms each request cost.
    this.#cachedJson ??= JSON.stringify(this.document());
    return this.#cachedJson;
  }

  #build(): OpenApiDocument {
    const catalog = new SchemaCatalog();
    const paths: Record<string, Record<string, unknown>> = {};
    for (const route of this.#routes) {
      const path = route.path.replace(PATH_PARAM, '{$1}');
      paths[path] ??= {};
      paths[path]![route.method.toLowerCase()] = this.#operation(route, catalog);
    }
    const { schemas, refs } = catalog.components();
    const doc = {
      openapi: '3.1.0',
      info: {
        title: 'Workspace Sites, Knowledge and Agent Chat API (svc-emulator)',
        version: '0.1.0',
        description: 'The /v1 REST interface, the console key routes and the emulator control plane.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: '/' }],
      paths,
      components: {
        schemas,
        headers: headerComponents(),
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'Workspace API key `svc_<env>_<secret>_<checksum>`' },
          admin: { type: 'http', scheme: 'bearer', description: 'Admin token, only when the emulator was started with one' },
        },
      },
    };
    resolveRefs(doc, refs);
    return doc;
  }

  #parameters(route: RouteDoc, catalog: SchemaCatalog): object[] {
    const parameters: object[] = [];
    for (const [, name] of route.path.matchAll(PATH_PARAM)) {
      const doc = route.params![name!]!;
      const { description, schema } = typeof doc === 'string' ? { description: doc, schema: undefined } : doc;
      parameters.push({ name, in: 'path', required: true, description, schema: schema ? catalog.convert(schema, 'input') : { type: 'string' } });
    }
    if (route.query) {
      const q = catalog.convert(route.query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
      for (const [name, schema] of Object.entries(q.properties ?? {})) {
        const { description, ...rest } = schema;
        parameters.push({ name, in: 'query', required: q.required?.includes(name) ?? false, ...(description && { description }), schema: rest });
      }
    }
    if (route.idempotent) {
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'Makes a retry safe: the same key with the same request answers the first answer again (`Idempotent-Replayed: true`); with another request, 422. Kept 24 h per key.',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      });
    }
    return parameters;
  }

  #content(doc: ResponseDoc, catalog: SchemaCatalog): Record<string, object> {
    const content: Record<string, object> = {};
    if (doc.schema) content[doc.contentType ?? 'application/json'] = { schema: catalog.convert(doc.schema, 'output') };
    for (const type of doc.also ?? []) content[type] = { schema: { type: 'string' } };
    for (const type of doc.files ?? []) content[type] = { schema: BINARY };
    if (doc.stream) {
      // OpenAPI 3.1 has no slot for the items of a stream (3.2 adds `itemSchema`): the
      // body is text, its events are described beside it.
      const events = Object.entries(doc.stream.events).map(([event, schema]) => [event, catalog.convert(schema, 'output')] as const);
      const union = v.union(Object.keys(doc.stream.events).map((event) => v.object({ event: v.literal(event), data: doc.stream!.events[event]! })));
      content['text/event-stream'] = {
        schema: { type: 'string', description: doc.stream.description },
        'x-events': Object.fromEntries(events),
        'x-itemSchema': catalog.convert(named(doc.stream.name, union), 'output'),
      };
    }
    return content;
  }

  #operation(route: RouteDoc, catalog: SchemaCatalog): object {
    const gated = route.security === 'apiKey';
    const idempotent = route.idempotent ?? false;
    const responses: Record<string, object> = {};
    for (const [status, doc] of Object.entries(route.responses)) {
      const content = this.#content(doc, catalog);
      responses[status] = {
        description: doc.description,
        headers: responseHeaders({ status: Number(status), gated, idempotent, own: doc.headers }),
        ...(Object.keys(content).length ? { content } : {}),
      };
    }
    // Only the console routes send problems as plain JSON (API.md, Errors).
    const problemType = route.path.startsWith('/workspaces/') ? 'application/json' : 'application/problem+json';
    const problem = catalog.convert(ProblemSchema, 'output');
    for (const [status, codes] of problemCodes(route)) {
      // The codes this status can carry, so that a client's `error.code` is typed by status.
      const schema = { allOf: [problem, { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: codes } } }] };
      responses[String(status)] ??= {
        description: `Problem: ${codes.join(', ')}`,
        headers: responseHeaders({ status, gated, idempotent, problem: true }),
        content: { [problemType]: { schema } },
      };
    }
    // An injected fault answers any status 400-599 with any code of the registry on every
    // route but the control plane's (D-025); the statuses above keep their own codes (D-874).
    if (!route.path.startsWith(CONTROL_PLANE)) {
      responses.default = {
        description: 'Problem: any other status and code, as an injected fault (`POST /_emulator/faults`) answers them',
        headers: responseHeaders({ status: 0, gated, idempotent, problem: true }),
        content: { [problemType]: { schema: problem } },
      };
    }
    const op: Record<string, unknown> = {
      operationId: route.operationId,
      summary: route.summary,
      tags: route.tags,
      parameters: this.#parameters(route, catalog),
      responses,
    };
    if (route.scope) op['x-required-scope'] = route.scope;
    if (route.deprecated) op.deprecated = true;
    // `[]` says "no key" outright; the admin token is optional (`{}`): only when one was set.
    op.security = route.security === 'none' ? [] : route.security === 'admin' ? [{ admin: [] }, {}] : [{ apiKey: [] }];
    if (route.body) {
      const contentType = route.bodyKind === 'multipart' ? 'multipart/form-data' : 'application/json';
      op.requestBody = { required: route.bodyRequired ?? true, content: { [contentType]: { schema: catalog.convert(route.body, 'input') } } };
    }
    return op;
  }
}
