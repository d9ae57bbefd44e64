import { extractCsv } from './extract-csv.js';
import { extractHtml } from './extract-html.js';
import { extractJson } from './extract-json.js';
import { extractPdf } from './extract-pdf.js';
import { decodeText, type DocFormat } from './formats.js';
import { IngestError } from './ingest-error.js';

export interface Extracted {
  /** Markdown (or plain text, which reads as Markdown paragraphs). */
  text: string;
  /** A title the document itself carries (HTML `<title>`). */
  title: string | undefined;
}

/**
 * The readable text of a document in one of the supported formats. Anything that
 * cannot be read, or holds no words, fails with `unsupported_document`.
 */
export async function extractText(format: DocFormat, bytes: Uint8Array, charset?: string): Promise<Extracted> {
  let text: string;
  let title: string | undefined;
  if (format === 'pdf') {
    text = await extractPdf(bytes);
  } else {
    const decoded = decodeText(bytes, charset).replace(/\r\n?/g, '\n');
    if (format === 'html') ({ markdown: text, title } = await extractHtml(decoded));
    else if (format === 'csv') text = await extractCsv(decoded);
    else if (format === 'json') {
      try {
        text = extractJson(decoded);
      } catch {
        throw new IngestError('unsupported_document', 'invalid JSON');
      }
    } else text = decoded;
  }
  text = text.trim();
  if (!/[\p{L}\p{N}]/u.test(text)) throw new IngestError('unsupported_document', 'no readable text');
  return { text, title };
}
