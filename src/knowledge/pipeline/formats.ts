/** The document formats the pipeline reads, and how a file or a response is matched to one. */
export type DocFormat = 'markdown' | 'text' | 'html' | 'csv' | 'json' | 'pdf';

/** The canonical media type of each format (the source's `contentType`). */
export const MEDIA_TYPES: Record<DocFormat, string> = {
  markdown: 'text/markdown',
  text: 'text/plain',
  html: 'text/html',
  csv: 'text/csv',
  json: 'application/json',
  pdf: 'application/pdf',
};

const BY_MEDIA_TYPE: Record<string, DocFormat> = {
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/plain': 'text',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/csv': 'csv',
  'application/csv': 'csv',
  'application/json': 'json',
  'text/json': 'json',
  'application/pdf': 'pdf',
};

const BY_EXTENSION: Record<string, DocFormat> = {
  md: 'markdown',
  markdown: 'markdown',
  txt: 'text',
  text: 'text',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  csv: 'csv',
  json: 'json',
  pdf: 'pdf',
};

/** A `Content-Type` value split into its lowercase media type and charset. */
export function parseContentType(value: string | undefined): { mediaType: string; charset: string | undefined } {
  const [type = '', ...params] = (value ?? '').split(';');
  let charset: string | undefined;
  for (const p of params) {
    const m = /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(p);
    if (m) charset = m[1]!.toLowerCase();
  }
  return { mediaType: type.trim().toLowerCase(), charset };
}

/**
 * The charset a declared `Content-Type` names, by its encoding name (`latin1` is
 * `windows-1252`), when the platform can decode it; else undefined (D-1190).
 */
export function declaredCharset(contentType: string): string | undefined {
  const { charset } = parseContentType(contentType);
  if (!charset) return undefined;
  try {
    return new TextDecoder(charset).encoding;
  } catch {
    return undefined;
  }
}

export function formatOfMediaType(mediaType: string): DocFormat | undefined {
  if (BY_MEDIA_TYPE[mediaType]) return BY_MEDIA_TYPE[mediaType];
  if (/^application\/[a-z0-9.+-]+\+json$/.test(mediaType)) return 'json';
  return undefined;
}

export function formatOfFileName(name: string): DocFormat | undefined {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? undefined : BY_EXTENSION[name.slice(dot + 1).toLowerCase()];
}

/** True when the bytes open like a PDF file. */
export function isPdf(bytes: Uint8Array): boolean {
  return bytes.length >= 5 && Buffer.from(bytes.subarray(0, 5)).toString('latin1') === '%PDF-';
}

/** The UTF-16 encoding a byte-order mark at the start names, if any (D-1086). */
function utf16Of(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

/**
 * A NUL byte near the start: binary data, whatever the name says. Text that opens with
 * a UTF-16 byte-order mark holds NUL bytes as part of its letters: it is text.
 */
export function looksBinary(bytes: Uint8Array): boolean {
  return utf16Of(bytes) === undefined && bytes.subarray(0, 8192).includes(0);
}

/**
 * Text from bytes: UTF-16 when a byte-order mark says so (it outranks a declared charset,
 * as in browsers), else the declared charset when the platform knows it, else UTF-8, else
 * Windows-1252 (old spreadsheets and pages), without a byte-order mark.
 */
export function decodeText(bytes: Uint8Array, charset?: string): string {
  const utf16 = utf16Of(bytes);
  if (utf16) return new TextDecoder(utf16).decode(bytes);
  let text: string | undefined;
  if (charset && charset !== 'utf-8' && charset !== 'utf8') {
    try {
      text = new TextDecoder(charset).decode(bytes);
    } catch {
      text = undefined;
    }
  }
  if (text === undefined) {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      text = new TextDecoder('windows-1252').decode(bytes);
    }
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * True for a file of nothing but ASCII white space (after a UTF-8 byte order mark): the
 * file counterpart of a blank text, refused as one (D-1109). Stops at the first other byte.
 */
export function isBlankFile(bytes: Uint8Array): boolean {
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  for (let i = start; i < bytes.length; i++) {
    const b = bytes[i]!;
    // Tab, line feed, vertical tab, form feed, carriage return, space.
    if (b !== 0x20 && (b < 0x09 || b > 0x0d)) return false;
  }
  return true;
}

/**
 * The format of an uploaded file, judged by its bytes first (a PDF signature; binary
 * data), then by its extension, then by its declared type; undefined when unreadable.
 * Cheap: looks at the first 8 KiB at most. A JSON file must still parse
 * (`isJsonDocument`), which grows with the file.
 */
export function guessUploadFormat(fileName: string, declaredType: string, bytes: Uint8Array): DocFormat | undefined {
  if (isPdf(bytes)) return 'pdf';
  const format = formatOfFileName(fileName) ?? formatOfMediaType(parseContentType(declaredType).mediaType);
  if (!format || format === 'pdf' || looksBinary(bytes)) return undefined;
  return format;
}

/** True when the bytes are one JSON document. */
export function isJsonDocument(bytes: Uint8Array): boolean {
  try {
    JSON.parse(decodeText(bytes));
    return true;
  } catch {
    return false;
  }
}

/** `guessUploadFormat`, with a JSON file that does not parse judged unreadable. */
export function detectUploadFormat(fileName: string, declaredType: string, bytes: Uint8Array): DocFormat | undefined {
  const format = guessUploadFormat(fileName, declaredType, bytes);
  return format === 'json' && !isJsonDocument(bytes) ? undefined : format;
}
