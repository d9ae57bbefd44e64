import { LIMIT_FAILURES } from '../../platform/ingest-failures.js';
import { IngestError, MAX_PDF_PAGES, MAX_TEXT_CHARS } from './ingest-error.js';

interface TextItem {
  str: string;
  hasEOL: boolean;
  transform: number[];
}

/** What `readPage` needs of an open pdf.js document. */
interface PdfDocument {
  getPage(n: number): Promise<{ getTextContent(): Promise<{ items: object[] }>; cleanup(): void }>;
}

/**
 * Page `n` and its text. A page pdf.js cannot read (a page tree that loops, a broken
 * content stream) makes the file unreadable, as one it cannot open (D-1086): the file's
 * fault, not the service's (`ingest_failed` logged as an error before). The buffer
 * guard's own error still ends the task as a memory limit.
 */
async function readPage(doc: PdfDocument, n: number) {
  try {
    const page = await doc.getPage(n);
    return { page, content: await page.getTextContent() };
  } catch (error) {
    if (error instanceof IngestError || (error instanceof RangeError && error.name === 'BufferLimitError')) throw error;
    throw new IngestError('unsupported_document', `unreadable PDF page ${n}: ${(error as Error).message}`);
  }
}

/**
 * The text of a PDF through pdf.js (no rendering, no fonts, no script): lines as the
 * file lays them out, a blank line where the vertical gap says a paragraph ends. A
 * file of more than `MAX_PDF_PAGES` pages, or whose text passes `MAX_TEXT_CHARS`, fails
 * at once with its limit reason rather than after reading everything.
 */
export async function extractPdf(bytes: Uint8Array): Promise<string> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  let doc: Awaited<ReturnType<typeof pdfjs.getDocument>['promise']>;
  try {
    // pdf.js takes ownership of the buffer it is given: hand it a copy.
    doc = await pdfjs.getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, useSystemFonts: false, disableFontFace: true, verbosity: 0 }).promise;
  } catch (error) {
    throw new IngestError('unsupported_document', `unreadable PDF: ${(error as Error).message}`);
  }
  try {
    if (doc.numPages > MAX_PDF_PAGES) throw new IngestError(LIMIT_FAILURES.tooManyPages, `${doc.numPages} pages`);
    const pages: string[] = [];
    let length = 0;
    for (let n = 1; n <= doc.numPages; n++) {
      const { page, content } = await readPage(doc, n);
      let text = '';
      let lastY: number | undefined;
      let lineHeight = 0;
      for (const raw of content.items) {
        if (!('str' in raw)) continue;
        const item = raw as TextItem;
        const y = item.transform[5] ?? 0;
        const height = Math.abs(item.transform[3] ?? 0) || lineHeight;
        if (lastY !== undefined && text.endsWith('\n') && lineHeight > 0 && Math.abs(lastY - y) > 1.8 * lineHeight) text += '\n';
        text += item.str;
        if (item.hasEOL) text += '\n';
        lastY = y;
        lineHeight = height;
      }
      pages.push(text.trim());
      page.cleanup();
      length += text.length;
      if (length > MAX_TEXT_CHARS) throw new IngestError(LIMIT_FAILURES.tooMuchText, `more than ${MAX_TEXT_CHARS} characters`);
    }
    return pages.filter(Boolean).join('\n\n');
  } finally {
    await doc.destroy();
  }
}
