import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'vitest';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: object }> }> }>>; components: { schemas: Record<string, object> } };

const cache = new WeakMap<object, Ajv2020>();

/**
 * Asserts that a response body matches what the OpenAPI document declares for that
 * operation and status (`path` in OpenAPI form: `/v1/agents/{agentId}`).
 */
export function expectMatchesOpenApi(document: object, method: string, path: string, status: number, body: unknown): void {
  // The served description, read as far as this check needs.
  const doc = document as Doc;
  const op = doc.paths[path]?.[method.toLowerCase()];
  expect(op, `${method} ${path} is described`).toBeDefined();
  const response = op!.responses[String(status)];
  expect(response, `${method} ${path} describes status ${status}`).toBeDefined();
  const schema = Object.values(response!.content ?? {})[0]?.schema;
  if (!schema) return;
  let ajv = cache.get(doc);
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ $id: 'openapi', components: doc.components });
    cache.set(doc, ajv);
  }
  const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')));
  expect(validate(body), `${method} ${path} ${status} matches the OpenAPI schema: ${JSON.stringify(validate.errors)}`).toBe(true);
}
