// Loaded as a module before `html-encoding-sniffer` (CommonJS) requires it: Node 20
// aborts the whole process when a worker thread is ended inside a `require()` of an ES
// module, and a thread ends while loading this file when the pool closes or a task runs
// out of time (D-1203).
import '@exodus/bytes/encoding-lite.js';
import sniffHtmlEncoding from 'html-encoding-sniffer';
import { markdownBlockTokens } from './chunk.js';
import { extractCsv } from './extract-csv.js';
import { extractHtml } from './extract-html.js';
import { extractJson } from './extract-json.js';
import { extractPdf } from './extract-pdf.js';
import { decodeText, type DocFormat } from './formats.js';
import { LIMIT_FAILURES } from '../../platform/ingest-failures.js';
import { IngestError, MAX_TEXT_CHARS } from './ingest-error.js';

export interface Extracted {
  /** Markdown (or plain text, which reads as Markdown paragraphs). */
  text: string;
  /** A title the document itself carries (HTML `<title>`, a Markdown document's first `# heading`). */
  title: string | undefined;
}

/** The text of a Markdown document's first level-one heading, through marked's lexer. */
async function markdownTitle(markdown: string): Promise<string | undefined> {
  for (const token of await markdownBlockTokens(markdown)) {
    if (token.type === 'heading' && token.depth === 1) return String(token.text).replace(/\s+/g, ' ').trim().slice(0, 300) || undefined;
  }
  return undefined;
}

function tooMuch(text: string): void {
  if (text.length > MAX_TEXT_CHARS) throw new IngestError(LIMIT_FAILURES.tooMuchText, `more than ${MAX_TEXT_CHARS} characters`);
}

/**
 * The charset a document is decoded with. A web page's is found as a browser finds it
 * (D-1189): a byte order mark, else the declared charset (HTTP header, upload part), else
 * a `<meta charset>` in its first 1024 bytes. Without any, `decodeText` tries UTF-8, then
 * Windows-1252, as for every other format.
 */
function charsetOf(format: DocFormat, bytes: Uint8Array, declared: string | undefined): string | undefined {
  if (format !== 'html') return declared;
  return sniffHtmlEncoding(bytes, { transportLayerEncodingLabel: declared, defaultEncoding: 'UTF-8' }).toLowerCase();
}

/**
 * The readable text of a document in one of the supported formats. Anything that
 * cannot be read, or holds no words, fails with `unsupported_document`; more text
 * than `MAX_TEXT_CHARS` fails with `unsupported_document:too_much_text`.
 */
export async function extractText(format: DocFormat, bytes: Uint8Array, charset?: string): Promise<Extracted> {
  let text: string;
  let title: string | undefined;
  if (format === 'pdf') {
    text = await extractPdf(bytes);
  } else {
    const decoded = decodeText(bytes, charsetOf(format, bytes, charset)).replace(/\r\n?/g, '\n');
    // Markup and tables shrink when read: only plain text is judged before reading.
    if (format === 'markdown' || format === 'text') tooMuch(decoded);
    if (format === 'html') ({ markdown: text, title } = await extractHtml(decoded));
    else if (format === 'csv') text = await extractCsv(decoded);
    else if (format === 'json') {
      try {
        text = extractJson(decoded);
      } catch (error) {
        if (error instanceof IngestError) throw error;
        throw new IngestError('unsupported_document', 'invalid JSON');
      }
    } else {
      text = decoded;
      if (format === 'markdown') title = await markdownTitle(decoded);
    }
  }
  text = text.trim();
  tooMuch(text);
  if (!/[\p{L}\p{N}]/u.test(text)) throw new IngestError('unsupported_document', 'no readable text');
  return { text, title };
}
