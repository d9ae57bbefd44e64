import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { RecordedAnswer } from './answers.js';

type Schema = Record<string, unknown>;
interface MediaType {
  schema?: Schema;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
  headers?: Record<string, Schema>;
}
interface Operation {
  operationId: string;
  responses: Record<string, ResponseObject>;
}
/** The parts of an OpenAPI 3.1 document the check reads. */
export interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; headers?: Record<string, Schema> };
}

/** How an answer was judged: checked (and how), or left aside because it is not the API's. */
export type Verdict =
  | { kind: 'checked'; operation: string; bodyChecked: boolean }
  | { kind: 'unknown-route' }
  | { kind: 'aside'; why: 'site' | 'ui' | 'unreadable' }
  | { kind: 'mismatch'; operation: string; reason: string };

// What any request may answer on a path the description does not list (CONTRACT: an
// unknown route is a 404 after the gate; the control-plane guard runs first).
const UNKNOWN_ROUTE_CODES = new Set([
  'svc.resource.not_found',
  'svc.api_key.invalid',
  'svc.rate_limit.exceeded',
  'svc.usage.budget_exceeded',
  'svc.auth.unauthorized',
  'svc.auth.forbidden',
]);

const isJson = (media: string) => media === 'application/json' || media.endsWith('+json');

/**
 * Checks recorded answers against an OpenAPI description: the route and method exist,
 * the status is declared, the media type is declared for that status, a JSON body
 * validates against its JSON Schema (Ajv, draft 2020-12) and every header the response
 * declares `required` was sent.
 */
export class ConformanceChecker {
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true, formats: { uri: (s: string) => URL.canParse(s), binary: true } });
  readonly #validators = new Map<string, ValidateFunction>();
  readonly #routes: { method: string; template: string; pattern: RegExp; literals: number; op: Operation }[] = [];

  constructor(private readonly doc: OpenApiDoc) {
    this.#ajv.addSchema({ $id: 'openapi', components: doc.components });
    for (const [template, item] of Object.entries(doc.paths)) {
      const segments = template.split('/');
      const pattern = new RegExp(`^${segments.map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`);
      const literals = segments.filter((s) => !s.startsWith('{')).length;
      for (const [method, op] of Object.entries(item)) this.#routes.push({ method: method.toUpperCase(), template, pattern, literals, op });
    }
    // Where two templates match (`/keyless` and `/{workspaceId}`), the more literal one is the route.
    this.#routes.sort((a, b) => b.literals - a.literals);
  }

  /** The operation a request reached, as `METHOD /template`. */
  route(method: string, path: string): { name: string; op: Operation } | undefined {
    const wanted = method === 'HEAD' ? 'GET' : method;
    const found = this.#routes.find((r) => r.method === wanted && r.pattern.test(path));
    return found && { name: `${found.method} ${found.template}`, op: found.op };
  }

  check(answer: RecordedAnswer): Verdict {
    if (answer.site) return { kind: 'aside', why: 'site' };
    if (answer.unreadable) return this.#checkUnreadable(answer);
    if (answer.faulted) return this.#checkFault(answer);
    if (answer.path === '/_emulator/ui' || answer.path.startsWith('/_emulator/ui/')) return { kind: 'aside', why: 'ui' };
    const media = answer.contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
    const found = this.route(answer.method, answer.path);
    if (!found) {
      const name = `${answer.method} ${answer.path} (no such route)`;
      const problem = this.#problemOf(answer);
      if (!problem || !UNKNOWN_ROUTE_CODES.has(problem.code))
        return { kind: 'mismatch', operation: name, reason: `${answer.status} ${media}: not an answer of an unknown route` };
      const problemErrors = this.#validate('#/components/schemas/Problem', { $ref: '#/components/schemas/Problem' }, problem);
      return problemErrors ? { kind: 'mismatch', operation: name, reason: `problem document: ${problemErrors}` } : { kind: 'unknown-route' };
    }
    const { name, op } = found;
    const response = op.responses[String(answer.status)];
    const mismatch = (reason: string): Verdict => ({ kind: 'mismatch', operation: name, reason });
    if (!response) return mismatch(`status ${answer.status} is not declared (declared: ${Object.keys(op.responses).join(', ')})`);
    const declared = Object.keys(response.content ?? {});
    if (declared.length === 0 && media) return mismatch(`${answer.status} sends ${media}; it declares no body`);
    if (declared.length > 0 && !declared.includes(media))
      return mismatch(`${answer.status} sends ${media || 'no content type'}; declared: ${declared.join(', ')}`);
    for (const [header, ref] of Object.entries(response.headers ?? {})) {
      const spec = this.#header(ref);
      if (spec.required && !answer.headers.includes(header.toLowerCase())) return mismatch(`${answer.status} lacks the required header ${header}`);
    }
    const schema = response.content?.[media]?.schema;
    if (!isJson(media) || !schema || answer.body === undefined) return { kind: 'checked', operation: name, bodyChecked: false };
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return mismatch(`${answer.status} ${media} body is not JSON`);
    }
    const errors = this.#validate(`${name} ${answer.status} ${media}`, schema, body);
    return errors ? mismatch(`${answer.status} ${media} body: ${errors}`) : { kind: 'checked', operation: name, bodyChecked: true };
  }

  /**
   * An injected fault's answer (any status 400-599, any code of the registry, D-874): its
   * status is declared, or the route's `default` covers it; it is a problem document of
   * the registry (not held to the codes the route answers by itself) with the headers
   * the `default` response requires (a fault answers before the key gate counts it).
   */
  #checkFault(answer: RecordedAnswer): Verdict {
    const media = answer.contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
    const found = this.route(answer.method, answer.path);
    const name = found?.name ?? `${answer.method} ${answer.path} (no such route)`;
    const mismatch = (reason: string): Verdict => ({ kind: 'mismatch', operation: name, reason });
    const declared = found && (found.op.responses[String(answer.status)] ?? found.op.responses.default);
    if (found && !declared)
      return mismatch(`injected ${answer.status} is not declared and the route has no default (declared: ${Object.keys(found.op.responses).join(', ')})`);
    if (declared && !Object.keys(declared.content ?? {}).includes(media))
      return mismatch(`injected ${answer.status} sends ${media || 'no content type'}; declared: ${Object.keys(declared.content ?? {}).join(', ')}`);
    for (const [header, ref] of Object.entries(found?.op.responses.default?.headers ?? {})) {
      if (this.#header(ref).required && !answer.headers.includes(header.toLowerCase()))
        return mismatch(`injected ${answer.status} lacks the required header ${header}`);
    }
    const problem = this.#problemOf(answer);
    if (!problem) return mismatch(`injected ${answer.status} ${media}: not a problem document`);
    const errors = this.#validate('#/components/schemas/Problem', { $ref: '#/components/schemas/Problem' }, problem);
    if (errors) return mismatch(`injected ${answer.status} problem document: ${errors}`);
    return found ? { kind: 'checked', operation: name, bodyChecked: true } : { kind: 'unknown-route' };
  }

  /**
   * A request the server could not make a URL of (D-1117): no route ran, so no route's
   * answer applies (nor the key gate's headers); it must be `400 svc.request.invalid`, a
   * problem document of the registry with the headers every problem carries.
   */
  #checkUnreadable(answer: RecordedAnswer): Verdict {
    const media = answer.contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
    const mismatch = (reason: string): Verdict => ({ kind: 'mismatch', operation: `${answer.method} ${answer.path} (unreadable)`, reason });
    const problem = this.#problemOf(answer);
    if (answer.status !== 400 || media !== 'application/problem+json' || problem?.code !== 'svc.request.invalid')
      return mismatch(`${answer.status} ${media} ${problem?.code ?? 'no problem'}: not 400 svc.request.invalid`);
    for (const header of ['x-request-id', 'x-content-type-options']) if (!answer.headers.includes(header)) return mismatch(`lacks the header ${header}`);
    const errors = this.#validate('#/components/schemas/Problem', { $ref: '#/components/schemas/Problem' }, problem);
    return errors ? mismatch(`problem document: ${errors}`) : { kind: 'aside', why: 'unreadable' };
  }

  #problemOf(answer: RecordedAnswer): { code: string } | undefined {
    if (answer.body === undefined) return undefined;
    try {
      const body = JSON.parse(answer.body) as { code?: unknown };
      return typeof body.code === 'string' ? (body as { code: string }) : undefined;
    } catch {
      return undefined;
    }
  }

  #header(ref: Schema): Schema {
    const target = typeof ref.$ref === 'string' ? ref.$ref.replace('#/components/headers/', '') : undefined;
    return target ? (this.doc.components.headers?.[target] ?? {}) : ref;
  }

  /** Ajv's errors, one line, or undefined when `value` is valid. */
  #validate(key: string, schema: Schema, value: unknown): string | undefined {
    let validate = this.#validators.get(key);
    if (!validate) {
      validate = this.#ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')));
      this.#validators.set(key, validate);
    }
    if (validate(value)) return undefined;
    return (validate.errors ?? [])
      .slice(0, 3)
      .map((e) => `${e.instancePath || '(body)'} ${e.message}${e.params && 'allowedValues' in e.params ? ` ${JSON.stringify(e.params.allowedValues)}` : ''}`)
      .join('; ');
  }
}

/**
 * The mismatches among `answers`, one line per distinct problem with how often it was
 * seen and the test that first met it; empty when every answer conforms.
 */
export function mismatchReport(checker: ConformanceChecker, answers: RecordedAnswer[]): string[] {
  const mismatches = new Map<string, { count: number; first: RecordedAnswer }>();
  for (const answer of answers) {
    const verdict = checker.check(answer);
    if (verdict.kind !== 'mismatch') continue;
    const key = `${verdict.operation}: ${verdict.reason}`;
    const seen = mismatches.get(key);
    if (seen) seen.count++;
    else mismatches.set(key, { count: 1, first: answer });
  }
  return [...mismatches].map(([key, { count, first }]) => `${key} (×${count}; first in ${first.file} › ${first.test})`);
}
