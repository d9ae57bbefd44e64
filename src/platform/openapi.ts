import * as v from 'valibot';
import { toJsonSchema, type ConversionConfig, type JsonSchema } from '@valibot/to-json-schema';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';
import { textActionsToJsonSchema } from './validation.js';

type AnySchema = v.GenericSchema<unknown, unknown>;

export interface ResponseDoc {
  description: string;
  schema?: AnySchema;
  /** Defaults to `application/json`. */
  contentType?: string;
  /** Other media types the same answer comes in, chosen by `Accept` (no schema). */
  also?: string[];
}

/** What the OpenAPI description needs to know of one route. */
export interface RouteDoc {
  method: string;
  path: string;
  summary: string;
  tags: string[];
  operationId?: string | undefined;
  security: 'apiKey' | 'admin' | 'none';
  scope?: string | null | undefined;
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
}

const PROBLEM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'instance', 'code', 'requestId'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    instance: { type: 'string' },
    code: { type: 'string', enum: Object.keys(ERROR_CODES) },
    requestId: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', required: ['field', 'reason'], properties: { field: { type: 'string' }, reason: { type: 'string' } } },
    },
  },
};

// Files in multipart bodies are `v.instance(File)`; JSON Schema calls them binary strings.
const conversion = (typeMode: 'input' | 'output'): ConversionConfig => ({
  target: 'draft-2020-12',
  typeMode,
  errorMode: 'ignore',
  overrideSchema: ({ valibotSchema }) =>
    valibotSchema.type === 'instance' ? { type: 'string', format: 'binary' } : undefined,
  // Text lengths count code points, as JSON Schema's minLength/maxLength do.
  overrideAction: textActionsToJsonSchema,
});

function schemaOf(schema: AnySchema, mode: 'input' | 'output'): JsonSchema {
  const out = { ...toJsonSchema(schema, conversion(mode)) } as Record<string, unknown>;
  delete out.$schema;
  return out as JsonSchema;
}

/**
 * Collects every route as it is registered and renders one OpenAPI 3.1 document from
 * the same valibot schemas that validate the requests.
 */
export class OpenApiRegistry {
  readonly #routes: RouteDoc[] = [];
  #cached: object | undefined;

  add(route: RouteDoc): void {
    this.#routes.push(route);
    this.#cached = undefined;
  }

  get routes(): readonly RouteDoc[] {
    return this.#routes;
  }

  document(): object {
    this.#cached ??= this.#build();
    return this.#cached;
  }

  #build(): object {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const route of this.#routes) {
      const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      paths[path] ??= {};
      paths[path]![route.method.toLowerCase()] = this.#operation(route);
    }
    return {
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
        schemas: { Problem: PROBLEM_SCHEMA },
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'Workspace API key `svc_<env>_<secret>_<checksum>`' },
          admin: { type: 'http', scheme: 'bearer', description: 'Admin token, only when the emulator was started with one' },
        },
      },
    };
  }

  #operation(route: RouteDoc): object {
    const parameters: object[] = [];
    for (const [, name] of route.path.matchAll(/:([A-Za-z0-9_]+)/g)) {
      parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
    }
    if (route.query) {
      const q = schemaOf(route.query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
      for (const [name, schema] of Object.entries(q.properties ?? {})) {
        parameters.push({ name, in: 'query', required: q.required?.includes(name) ?? false, schema });
      }
    }
    const responses: Record<string, object> = {};
    for (const [status, doc] of Object.entries(route.responses)) {
      const content: Record<string, object> = {};
      if (doc.schema || doc.contentType) content[doc.contentType ?? 'application/json'] = doc.schema ? { schema: schemaOf(doc.schema, 'output') } : {};
      for (const type of doc.also ?? []) content[type] = {};
      responses[status] = { description: doc.description, ...(Object.keys(content).length ? { content } : {}) };
    }
    // Only the console routes send problems as plain JSON (API.md, Errors).
    const problemType = route.path.startsWith('/workspaces/') ? 'application/json' : 'application/problem+json';
    // What the route wrapper itself can answer, from the route's features.
    const codes = new Set<ErrorCode>(route.errors ?? []);
    if (route.security === 'apiKey') {
      codes.add('svc.api_key.invalid');
      codes.add('svc.rate_limit.exceeded');
      codes.add('svc.usage.budget_exceeded');
      if (route.scope) codes.add('svc.api_key.scope_missing');
      if (route.method === 'POST') codes.add('svc.idempotency.conflict').add('svc.request.validation_failed');
    }
    // Admin routes answer 401 when the emulator was started with an admin token.
    if (route.security === 'admin') codes.add('svc.auth.unauthorized');
    if (route.query) codes.add('svc.request.validation_failed');
    if (route.body) {
      codes.add('svc.request.invalid').add('svc.request.payload_too_large').add(route.invalid ?? 'svc.request.validation_failed');
    }
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of codes) {
      const status = ERROR_CODES[code].status;
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    // An idempotency conflict is 409 while the first request still runs.
    if (codes.has('svc.idempotency.conflict')) byStatus.set(409, [...(byStatus.get(409) ?? []), 'svc.idempotency.conflict']);
    for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
      responses[String(status)] ??= {
        description: `Problem: ${list.join(', ')}`,
        content: { [problemType]: { schema: { $ref: '#/components/schemas/Problem' } } },
      };
    }
    const op: Record<string, unknown> = {
      operationId: route.operationId ?? `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, ch: string | undefined) => (ch ?? '').toUpperCase())}`,
      summary: route.summary,
      tags: route.tags,
      parameters,
      responses,
    };
    if (route.scope) op['x-required-scope'] = route.scope;
    if (route.deprecated) op.deprecated = true;
    // `[]` says "no key" outright; the admin token is optional (`{}`): only when one was set.
    op.security = route.security === 'none' ? [] : route.security === 'admin' ? [{ admin: [] }, {}] : [{ apiKey: [] }];
    if (route.body) {
      const contentType = route.bodyKind === 'multipart' ? 'multipart/form-data' : 'application/json';
      op.requestBody = { required: route.bodyRequired ?? true, content: { [contentType]: { schema: schemaOf(route.body, 'input') } } };
    }
    return op;
  }
}
