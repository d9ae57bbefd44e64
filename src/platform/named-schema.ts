import * as v from 'valibot';

/** The metadata key that carries a schema's component name (read by `openapi-schemas.ts`). */
export const COMPONENT_NAME = 'x-component';

/**
 * Names a record or body schema: the OpenAPI description declares it once as
 * `#/components/schemas/<name>` and refers to it wherever it appears, so generated
 * clients get an `Agent` type rather than an anonymous object. Validation is unchanged
 * (a metadata item does nothing at run time).
 */
export function named<S extends v.GenericSchema<unknown, unknown>>(name: string, schema: S) {
  return v.pipe(schema, v.metadata({ [COMPONENT_NAME]: name }));
}

/** The pagination envelope of a list of `item`, named `<name>`: `{ data, hasMore, nextCursor }`. */
export function namedListPage<S extends v.GenericSchema<unknown, unknown>>(name: string, item: S) {
  return named(name, v.object({ data: v.array(item), hasMore: v.boolean(), nextCursor: v.nullable(v.string()) }));
}
