import type { paths } from './api-types.js';

/** The methods the API uses, as openapi-typescript names them. */
export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';

/** Every path that has an operation for `M`: `PathsWith<'post'>` includes `/v1/agents`. */
export type PathsWith<M extends HttpMethod> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never;
}[keyof paths];

/** The operation behind a path and method (from the generated `operations`). */
export type OperationOf<P extends keyof paths, M extends HttpMethod> = paths[P] extends { [K in M]: infer O } ? O : never;

type ParamsOf<O> = O extends { parameters: infer X } ? X : never;
type PathParamsOf<O> = ParamsOf<O> extends { path: infer X } ? X : never;
type QueryOf<O> = ParamsOf<O> extends { query?: infer X } ? Exclude<X, undefined> : never;
type ContentUnion<C> = C[keyof C];
// Multipart routes also take a ready FormData.
type BodyContent<C> = 'multipart/form-data' extends keyof C ? ContentUnion<C> | FormData : ContentUnion<C>;

type PathInit<O> = [PathParamsOf<O>] extends [never] ? { path?: never } : { path: PathParamsOf<O> };
type QueryInit<O> = [QueryOf<O>] extends [never] ? { query?: never } : { query?: QueryOf<O> | undefined };
type BodyInit<O> = O extends { requestBody: { content: infer C } }
  ? { body: BodyContent<C> }
  : O extends { requestBody?: { content: infer C } }
    ? { body?: BodyContent<C> | undefined }
    : { body?: never };

/** How the answer's body is read; by default JSON when it says JSON, else text. */
export type ParseAs = 'json' | 'text' | 'arrayBuffer' | 'blob' | 'stream';

/**
 * The second argument of a typed call: path and query parameters, body, headers. An
 * optional field takes `undefined` as unset, under `exactOptionalPropertyTypes` too (D-1162).
 */
export type RequestInitFor<O> = { params?: (PathInit<O> & QueryInit<O>) | undefined } & ([PathParamsOf<O>] extends [never]
  ? unknown
  : { params: PathInit<O> & QueryInit<O> }) &
  BodyInit<O> & { headers?: Record<string, string> | undefined; parseAs?: ParseAs | undefined };

type IsRequired<O> = [PathParamsOf<O>] extends [never] ? (O extends { requestBody: object } ? true : false) : true;

/** The init argument, required only when the route has path parameters or a required body. */
export type InitArgs<O> = IsRequired<O> extends true ? [init: RequestInitFor<O>] : [init?: RequestInitFor<O>];

type ResponsesOf<O> = O extends { responses: infer R } ? R : never;
// `application/json`, `application/problem+json`.
type JsonKeys<C> = Extract<keyof C, `${string}json`>;
/**
 * What a status's body reads as by default: its JSON form when it has one (a typed call
 * asks for JSON, D-802), else the text the default read gives; nothing without content.
 */
type ContentOf<R> = R extends { content: infer C } ? ([JsonKeys<C>] extends [never] ? string : C[JsonKeys<C>]) : undefined;
type Parsed<B, P extends ParseAs | undefined> = P extends 'text'
  ? string
  : P extends 'arrayBuffer'
    ? ArrayBuffer
    : P extends 'blob'
      ? Blob
      : P extends 'stream'
        ? ReadableStream<Uint8Array> | null
        : B;

interface AnswerCommon {
  headers: Headers;
  /** The raw answer; its body is already read unless `parseAs: 'stream'`. */
  response: Response;
}

/** One declared status of an operation: `ok`, `data` on 2xx; `error` (the problem) otherwise. */
export type AnswerFor<S, B> = `${S & number}` extends `2${string}`
  ? AnswerCommon & { status: S; ok: true; body: B; data: B; error?: undefined }
  : AnswerCommon & { status: S; ok: false; body: B; data?: undefined; error: B };

type Digit = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
type AsNumber<T> = T extends `${infer N extends number}` ? N : never;
/** Every status a problem may have, 400 to 599. */
export type ErrorStatus = AsNumber<`${4 | 5}${Digit}${Digit}`>;

// `default` (what an injected fault may answer, D-874): any error status the route does
// not declare, so `res.status === 404` still narrows to the route's own 404.
type DefaultAnswer<O, P extends ParseAs | undefined> = 'default' extends keyof ResponsesOf<O>
  ? AnswerCommon & {
      status: Exclude<ErrorStatus, keyof ResponsesOf<O>>;
      ok: false;
      body: Parsed<ContentOf<ResponsesOf<O>['default']>, P>;
      data?: undefined;
      error: Parsed<ContentOf<ResponsesOf<O>['default']>, P>;
    }
  : never;

/**
 * The answer of a typed call: a union over the statuses the route declares, so
 * `if (res.status === 201) res.body.name` narrows to the record.
 */
export type TypedAnswer<O, P extends ParseAs | undefined = undefined> =
  | { [S in Exclude<keyof ResponsesOf<O>, 'default'>]: AnswerFor<S, Parsed<ContentOf<ResponsesOf<O>[S]>, P>> }[Exclude<keyof ResponsesOf<O>, 'default'>]
  | DefaultAnswer<O, P>;

/**
 * The `parseAs` an init argument names, else `undefined`. Without an init argument `I`
 * is its constraint, whose `parseAs` is optional: reading `I['parseAs']` would then
 * give every form at once (D-800), so only a `parseAs` actually given counts (one that
 * may be `undefined` gives the default form besides its own).
 */
type ParseAsOf<I> = [I] extends [{ parseAs: infer X extends ParseAs | undefined }] ? X : undefined;

// The keys of every member of a union (`keyof` a union gives only the keys all share),
// and the type a key has in the members that have it.
type KeysOf<S> = S extends unknown ? keyof S : never;
type AtKey<S, K extends PropertyKey> = S extends unknown ? (K extends keyof S ? S[K] : never) : never;
type ElementOf<S> = S extends readonly (infer E)[] ? E : never;

/**
 * `T`, with each key the shape `S` does not name typed `never`, in nested objects and
 * arrays too (D-1121). A call's init is inferred (`I`), and TypeScript checks no excess
 * properties of an inferred type: without this a misspelt optional field (`topic` for
 * `topics`, `limt` for `limit`) compiled and the server refused it. A shape with an
 * index signature (`headers`) names every key; files and forms are taken as they are.
 */
export type NoExtraKeys<T, S> = T extends Blob | FormData | ArrayBuffer | ArrayBufferView | Date
  ? T
  : T extends readonly unknown[]
    ? { [K in keyof T]: NoExtraKeys<T[K], ElementOf<NonNullable<S>>> }
    : T extends object
      ? { [K in keyof T]: K extends KeysOf<NonNullable<S>> ? NoExtraKeys<T[K], AtKey<NonNullable<S>, K>> : never }
      : T;

type TypedCall<M extends HttpMethod> = <P extends PathsWith<M>, I extends RequestInitFor<OperationOf<P, M>>>(
  path: P,
  ...init: IsRequired<OperationOf<P, M>> extends true
    ? [init: I & NoExtraKeys<I, RequestInitFor<OperationOf<P, M>>>]
    : [init?: I & NoExtraKeys<I, RequestInitFor<OperationOf<P, M>>>]
) => Promise<TypedAnswer<OperationOf<P, M>, ParseAsOf<I>>>;

/** Calls typed by path and method, in the openapi-fetch style (`GET`, `POST`, ...). */
export interface TypedCalls {
  GET: TypedCall<'get'>;
  POST: TypedCall<'post'>;
  PUT: TypedCall<'put'>;
  PATCH: TypedCall<'patch'>;
  DELETE: TypedCall<'delete'>;
}

export interface UntypedInit {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown> };
  body?: unknown;
  headers?: Record<string, string>;
  parseAs?: ParseAs;
}

/** `/v1/agents/{agentId}` with `{ agentId: 'a b' }` → `/v1/agents/a%20b`, plus the query string. */
export function buildPath(template: string, init: UntypedInit = {}): string {
  const pathParams = init.params?.path ?? {};
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = pathParams[name];
    if (value === undefined || value === null) throw new TypeError(`${template}: missing path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(init.params?.query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const query = search.toString();
  return query ? `${path}?${query}` : path;
}

/** A plain object holding a Blob goes as multipart; every other field as text. */
export function toFormIfFiles(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || body instanceof FormData || body instanceof Uint8Array) return body;
  const entries = Object.entries(body as Record<string, unknown>);
  if (!entries.some(([, value]) => value instanceof Blob)) return body;
  const form = new FormData();
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    if (value instanceof Blob) form.append(name, value);
    else form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return form;
}

/**
 * The headers a typed call sends: it asks for JSON (the form its answer types describe,
 * D-802) unless the caller names an `Accept` of its own or reads the body another way.
 * An `Accept` of its own that asks for no JSON needs a `parseAs` other than `json`, or
 * the call throws a `TypeError` before anything is sent (D-1111).
 */
export function typedHeaders(init: UntypedInit): Record<string, string> | undefined {
  const given = init.headers;
  if (init.parseAs !== undefined && init.parseAs !== 'json') return given;
  const accept = given && Object.entries(given).find(([name]) => name.toLowerCase() === 'accept');
  if (!accept) return { accept: 'application/json', ...given };
  // The answer is typed as JSON: an Accept that asks for something else would make the type untrue (D-1111).
  if (!/json|\*\/\*/i.test(accept[1])) {
    throw new TypeError(
      `a typed call reads its answer as JSON, but its Accept asks for ${JSON.stringify(accept[1])}: say how to read that answer with parseAs ('stream', 'text', 'blob' or 'arrayBuffer')`,
    );
  }
  return given;
}

/** Reads an answer's body as asked; by default parsed JSON when it says JSON, else text. */
export async function readBody(res: Response, parseAs: ParseAs | undefined): Promise<{ body: unknown; text: string }> {
  switch (parseAs) {
    case 'stream':
      return { body: res.body, text: '' };
    case 'arrayBuffer':
      return { body: await res.arrayBuffer(), text: '' };
    case 'blob':
      return { body: await res.blob(), text: '' };
    case 'text': {
      const text = await res.text();
      return { body: text, text };
    }
    default: {
      const text = await res.text();
      if (parseAs !== 'json' && !/json/i.test(res.headers.get('content-type') ?? '')) return { body: text || undefined, text };
      try {
        return { body: text ? JSON.parse(text) : undefined, text };
      } catch {
        return { body: undefined, text };
      }
    }
  }
}
