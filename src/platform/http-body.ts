import type { Context } from 'hono';
import type { ErrorCode } from './error-codes.js';
import { readRfc7578 } from './multipart-rfc7578.js';
import { ServiceError } from './service-error.js';
import { assertSafeValue } from './validation.js';

const MiB = 1024 * 1024;

/** Body size limits of CONTRACT (Conventions; control plane). */
export const BODY_LIMITS = {
  json: MiB,
  knowledgeText: 4 * MiB,
  upload: 20 * MiB,
  control: 64 * MiB,
} as const;

/**
 * The body's declared length: `Content-Length` as a whole number, when the request has
 * no `Transfer-Encoding` (RFC 9112: then the length is what is sent); undefined otherwise.
 */
function declaredLength(c: Context): number | undefined {
  const header = c.req.header('content-length');
  if (header === undefined || c.req.header('transfer-encoding') !== undefined || !/^\d{1,15}$/.test(header.trim())) return undefined;
  return Number(header);
}

/** Whether the request came through the server (node-server's request over a socket), not handed in in process. */
function throughServer(c: Context): boolean {
  return (c.env as { incoming?: unknown } | undefined)?.incoming !== undefined;
}

/**
 * Whether the request carries a body. Through the server, its headers say (RFC 9112: a
 * `Content-Length` above 0 or a `Transfer-Encoding`): asking node-server's request for
 * its `body` makes it build a whole `Request` with a stream over the socket (D-1216,
 * D-1217). In process, the `Request` handed in says.
 */
export function hasBody(c: Context): boolean {
  if (!throughServer(c)) return c.req.raw.body !== null;
  // Node's parser refuses a `Content-Length` that is no whole number before we see it.
  return c.req.header('transfer-encoding') !== undefined || (declaredLength(c) ?? 0) > 0;
}

/**
 * Reads the raw body, refusing with 413 as soon as it passes `limit` bytes. Through the
 * server, a body of a declared length within the limit is read whole (D-1217):
 * node-server then reads the socket into one buffer instead of building a `Request` and
 * a stream over it (an upload's third of a millisecond of the serving thread), and
 * Node's parser reads no more than the declared bytes. A `Request` handed in in process
 * may declare less than its stream holds: it is read as a stream, as one sent in chunks.
 */
export async function readBody(c: Context, limit: number): Promise<Uint8Array> {
  const declared = Number(c.req.header('content-length'));
  if (Number.isFinite(declared) && declared > limit) throw new ServiceError('svc.request.payload_too_large');
  // Within the limit, checked above: Node's parser holds the body to its declared length.
  if (throughServer(c) && declaredLength(c) !== undefined) return new Uint8Array(await c.req.raw.arrayBuffer());
  const stream = c.req.raw.body;
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new ServiceError('svc.request.payload_too_large');
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

function mediaType(c: Context): string {
  return (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Reads a JSON body. An empty body reads as `undefined`; anything else must be sent as
 * `application/json` and parse, or it is `svc.request.invalid`. JSON nested past
 * `MAX_JSON_DEPTH` or holding a lone surrogate is refused with `code` (the route's
 * `*.invalid` code), naming the field, before anything walks it.
 */
export async function readJson(c: Context, limit: number = BODY_LIMITS.json, code: ErrorCode = 'svc.request.validation_failed'): Promise<unknown> {
  const bytes = await readBody(c, limit);
  if (bytes.byteLength === 0) return undefined;
  if (mediaType(c) !== 'application/json') {
    throw new ServiceError('svc.request.invalid', {
      detail: { en: 'Send the body as Content-Type: application/json.', es: 'Envíe el cuerpo con Content-Type: application/json.' },
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new ServiceError('svc.request.invalid', {
      detail: { en: 'The body is not valid JSON.', es: 'El cuerpo no es JSON válido.' },
    });
  }
  assertSafeValue(value, code, true);
  return value;
}

/**
 * Reads a `multipart/form-data` body with the platform's (undici) parser, else busboy for
 * what RFC 7578 clients send and undici refuses (D-1194). An empty body reads as
 * `undefined`, whatever its `Content-Type`, as for JSON (D-1079).
 */
export async function readMultipart(
  c: Context,
  limit: number = BODY_LIMITS.upload,
  code: ErrorCode = 'svc.request.validation_failed',
): Promise<FormData | undefined> {
  const type = c.req.header('content-type') ?? '';
  const bytes = await readBody(c, limit);
  if (bytes.byteLength === 0) return undefined;
  if (mediaType(c) !== 'multipart/form-data') {
    throw new ServiceError('svc.request.invalid', {
      detail: { en: 'Send the body as multipart/form-data.', es: 'Envíe el cuerpo como multipart/form-data.' },
    });
  }
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { 'content-type': type } }).formData();
  } catch {
    // What the Fetch standard's parser refuses and RFC 7578 clients send (D-1194).
    form = await readRfc7578(bytes, type, limit).catch(() => {
      throw new ServiceError('svc.request.invalid', {
        detail: { en: 'The multipart body could not be read.', es: 'No se pudo leer el cuerpo multipart.' },
      });
    });
  }
  const garbled = garbledField(form, bytes);
  if (garbled !== undefined) throw new ServiceError(code, { errors: [{ field: garbled, reason: 'must be UTF-8 text' }] });
  return form;
}

const REPLACEMENT = '\uFFFD';
const REPLACEMENT_BYTES = Buffer.from(REPLACEMENT, 'utf8');

/**
 * The first text field the parser could not read as UTF-8 (D-1106): undici decodes a
 * field's bytes leniently, each invalid sequence becoming U+FFFD, so the text stored
 * would not be the text sent. A field holding more U+FFFD than the whole body holds
 * encoded ones was not sent so. (A file's bytes may hold some too: then a garbled field
 * can pass, a well-formed one is never refused.)
 */
function garbledField(form: FormData, bytes: Uint8Array): string | undefined {
  let shown = 0;
  let first: string | undefined;
  for (const [name, value] of form.entries()) {
    if (typeof value !== 'string' || !value.includes(REPLACEMENT)) continue;
    shown += value.split(REPLACEMENT).length - 1;
    first ??= name;
  }
  if (first === undefined) return undefined;
  let sent = 0;
  const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = body.indexOf(REPLACEMENT_BYTES); at !== -1 && sent < shown; at = body.indexOf(REPLACEMENT_BYTES, at + 3)) sent += 1;
  return sent < shown ? first : undefined;
}
