import { isDeepStrictEqual } from 'node:util';
import type * as v from 'valibot';
import { toJsonSchema, type ConversionConfig, type JsonSchema } from '@valibot/to-json-schema';
import { COMPONENT_NAME } from './named-schema.js';
import { textActionsToJsonSchema } from './validation.js';

type AnySchema = v.GenericSchema<unknown, unknown>;

/** Requests are described as clients send them (`input`), answers as they are sent (`output`). */
export type SchemaMode = 'input' | 'output';

const REF = '#/components/schemas/';
// Input versions wait under this suffix until `components()` knows whether they differ.
const INPUT_SUFFIX = '~input';

/**
 * Converts valibot schemas to JSON Schema 2020-12 for the OpenAPI description and
 * collects the named ones (`named()`) as components: each is declared once and
 * referenced with `$ref`. A name converted in both modes with the same result is one
 * component; when the request form differs from the answer's (a default, a looser
 * type), the request form is `<Name>Input`.
 */
export class SchemaCatalog {
  readonly #found: Record<SchemaMode, Map<string, JsonSchema>> = { input: new Map(), output: new Map() };
  readonly #config: Record<SchemaMode, ConversionConfig> = { input: this.#configFor('input'), output: this.#configFor('output') };

  /** The JSON Schema of `schema`, named parts replaced by references. */
  convert(schema: AnySchema, mode: SchemaMode): JsonSchema {
    const out = { ...toJsonSchema(schema, this.#config[mode]) } as Record<string, unknown>;
    delete out.$schema;
    return out as JsonSchema;
  }

  /**
   * The components met so far, and how to spell each reference `convert` wrote (to be
   * applied to the whole document with `resolveRefs`).
   */
  components(): { schemas: Record<string, JsonSchema>; refs: Map<string, string> } {
    const schemas: Record<string, JsonSchema> = {};
    const refs = new Map<string, string>();
    const names = [...new Set([...this.#found.output.keys(), ...this.#found.input.keys()])].sort();
    for (const name of names) {
      const output = this.#found.output.get(name);
      const input = this.#found.input.get(name);
      if (output) schemas[name] = output;
      if (input) {
        const inputName = output && !isDeepStrictEqual(output, input) ? `${name}Input` : name;
        if (inputName !== name && this.#found.output.has(inputName)) throw new Error(`OpenAPI: ${inputName} names a record and the request form of ${name}`);
        schemas[inputName] = input;
        refs.set(`${REF}${name}${INPUT_SUFFIX}`, `${REF}${inputName}`);
      }
    }
    return { schemas, refs };
  }

  #configFor(mode: SchemaMode): ConversionConfig {
    const found = this.#found[mode];
    return {
      target: 'draft-2020-12',
      typeMode: mode,
      errorMode: 'ignore',
      overrideSchema: ({ valibotSchema, jsonSchema }) => {
        // Files in multipart bodies are `v.instance(File)`; JSON Schema calls them binary strings.
        if (valibotSchema.type === 'instance') return { type: 'string', format: 'binary' };
        // A query integer's default is written as the text a query carries (`'50'`).
        if (jsonSchema.type === 'integer' && typeof jsonSchema.default === 'string') return { ...jsonSchema, default: Number(jsonSchema.default) };
        return undefined;
      },
      overrideAction: (context) => {
        const action = context.valibotAction as { type: string; metadata?: Record<string, unknown> };
        const name = action.type === 'metadata' ? action.metadata?.[COMPONENT_NAME] : undefined;
        if (typeof name !== 'string') return textActionsToJsonSchema(context);
        const { [COMPONENT_NAME]: _marker, ...body } = context.jsonSchema as Record<string, unknown>;
        const seen = found.get(name);
        if (seen && !isDeepStrictEqual(seen, body)) throw new Error(`OpenAPI: two different schemas are named ${name}`);
        found.set(name, body as JsonSchema);
        return { $ref: `${REF}${name}${mode === 'input' ? INPUT_SUFFIX : ''}` };
      },
    };
  }
}

/** Rewrites every `$ref` of `value` (a whole document) through `refs`, in place. */
export function resolveRefs(value: unknown, refs: Map<string, string>): void {
  if (Array.isArray(value)) {
    for (const item of value) resolveRefs(item, refs);
  } else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const [key, child] of Object.entries(record)) {
      if (key === '$ref' && typeof child === 'string') record[key] = refs.get(child) ?? child;
      else resolveRefs(child, refs);
    }
  }
}
