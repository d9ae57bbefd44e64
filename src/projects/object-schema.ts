import * as v from 'valibot';
import { toJsonSchema } from '@valibot/to-json-schema';

const isPlainObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `v.strictObject` that also refuses arrays: valibot reads `[]` as `{}`, which would
 * let `{ "tokens": [] }` through as an empty patch. The metadata carries the object's
 * JSON Schema, so the OpenAPI description still shows its properties.
 */
export function strictRecord<E extends v.ObjectEntries>(entries: E) {
  const inner = v.strictObject(entries);
  const { $schema: _drop, ...described } = toJsonSchema(inner, { typeMode: 'input', errorMode: 'ignore' }) as Record<string, unknown>;
  return v.pipe(
    v.custom<v.InferInput<typeof inner>>(isPlainObject, 'must be an object'),
    v.metadata(described),
    inner,
  );
}
