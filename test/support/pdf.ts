import { createDeflate } from 'node:zlib';

/**
 * PDF files written as PDF syntax, for tests that need big or crafted documents
 * without committing blobs: pages of text, many pages, compressed content streams
 * and streams shared by many pages. Offsets in the cross-reference table are exact,
 * so pdf.js reads the files without repairing them.
 */

export interface PdfStream {
  /** The stream's bytes as stored (already compressed when `filter` is set). */
  data: Buffer;
  filter?: 'FlateDecode';
}

export interface PdfPage {
  /** Object numbers of content streams (see `stream`), in order. */
  contents: number[];
  /** The object number of the page's font `/F1` (see `object`); default Helvetica. */
  font?: number;
}

/** Escapes text for a PDF literal string. */
export function pdfString(text: string): string {
  return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

/** A content stream that shows lines of text, one per `Td` step. */
export function textContent(lines: string[]): Buffer {
  const body = lines.map((line, i) => `${i === 0 ? '72 720 Td' : '0 -16 Td'} ${pdfString(line)} Tj`).join('\n');
  return Buffer.from(`BT /F1 12 Tf\n${body}\nET`, 'latin1');
}

export class PdfWriter {
  readonly #objects: Buffer[] = [];
  readonly #pages: PdfPage[] = [];

  /** Adds a stream object (with more dictionary entries in `extra`); answers its object number. */
  stream(stream: PdfStream, extra = ''): number {
    const dict = `<< /Length ${stream.data.length}${stream.filter ? ` /Filter /${stream.filter}` : ''}${extra ? ` ${extra}` : ''} >>`;
    return this.#add(Buffer.concat([Buffer.from(`${dict}\nstream\n`, 'latin1'), stream.data, Buffer.from('\nendstream', 'latin1')]));
  }

  /** Adds an object written as PDF syntax (a dictionary); answers its object number. */
  object(body: string): number {
    return this.#add(Buffer.from(body, 'latin1'));
  }

  page(page: PdfPage): this {
    this.#pages.push(page);
    return this;
  }

  #add(body: Buffer): number {
    this.#objects.push(body);
    return this.#objects.length + 3;
  }

  /** The whole file: catalog 1, pages 2, font 3, then the streams, then the pages. */
  toBuffer(): Buffer {
    const firstPage = this.#objects.length + 4;
    const kids = this.#pages.map((_, i) => `${firstPage + i} 0 R`).join(' ');
    const fixed = [
      Buffer.from('<< /Type /Catalog /Pages 2 0 R >>', 'latin1'),
      Buffer.from(`<< /Type /Pages /Kids [${kids}] /Count ${this.#pages.length} >>`, 'latin1'),
      Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>', 'latin1'),
    ];
    const pages = this.#pages.map((p) => {
      const contents = p.contents.length === 1 ? `${p.contents[0]} 0 R` : `[${p.contents.map((n) => `${n} 0 R`).join(' ')}]`;
      return Buffer.from(
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${p.font ?? 3} 0 R >> >> /Contents ${contents} >>`,
        'latin1',
      );
    });
    const all = [...fixed, ...this.#objects, ...pages];
    const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
    let offset = parts[0]!.length;
    const offsets: number[] = [];
    all.forEach((body, i) => {
      offsets.push(offset);
      const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
      parts.push(obj);
      offset += obj.length;
    });
    const xref = [`xref\n0 ${all.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
    parts.push(Buffer.from(`${xref}trailer\n<< /Size ${all.length + 1} /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
    return Buffer.concat(parts);
  }
}

/** A PDF of `pages` pages, each showing the lines `text(n)` gives for page n. */
export function textPdf(pages: number, text: (page: number) => string[]): Buffer {
  const pdf = new PdfWriter();
  for (let n = 1; n <= pages; n++) pdf.page({ contents: [pdf.stream({ data: textContent(text(n)) })] });
  return pdf.toBuffer();
}

/**
 * Deflated bytes of `size` bytes of `fill`, compressed piece by piece so that the
 * test never holds the inflated size (a repeated byte deflates about 1,000 to 1).
 */
export async function deflatedRun(size: number, fill = 0x20): Promise<Buffer> {
  const piece = Buffer.alloc(Math.min(size, 1 << 20), fill);
  const deflate = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise<void>((resolve, reject) => deflate.once('end', resolve).once('error', reject));
  for (let left = size; left > 0; left -= piece.length) {
    if (!deflate.write(left >= piece.length ? piece : piece.subarray(0, left))) await new Promise((r) => deflate.once('drain', r));
  }
  deflate.end();
  await done;
  return Buffer.concat(out);
}

/**
 * A content stream that sets each line with per-glyph kerning (`[(a) -12 (b) ...] TJ`),
 * as typesetting programs write text: the file is several times the size of its text.
 */
export function kernedContent(lines: string[]): Buffer {
  const kerned = (line: string) => `[${[...line].map((ch) => `${pdfString(ch)} -12.5`).join(' ')}] TJ`;
  const body = lines.map((line, i) => `${i === 0 ? '72 720 Td' : '0 -16 Td'} ${kerned(line)}`).join('\n');
  return Buffer.from(`BT /F1 12 Tf\n${body}\nET`, 'latin1');
}

/**
 * A bomb of `inflated` bytes behind a tiny file: a page whose TrueType font program is
 * a deflated run of zeros, which pdf.js inflates whole to read the font.
 */
export async function fontBombPdf(inflated: number): Promise<Buffer> {
  const pdf = new PdfWriter();
  const file = pdf.stream({ data: await deflatedRun(inflated, 0), filter: 'FlateDecode' }, `/Length1 ${inflated}`);
  const descriptor = pdf.object(
    `<< /Type /FontDescriptor /FontName /Bomb /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 ${file} 0 R >>`,
  );
  const font = pdf.object(
    `<< /Type /Font /Subtype /TrueType /BaseFont /Bomb /FirstChar 32 /LastChar 126 /Widths [${Array(95).fill(500).join(' ')}] /FontDescriptor ${descriptor} 0 R >>`,
  );
  pdf.page({ contents: [pdf.stream({ data: textContent(['Hello']) })], font });
  return pdf.toBuffer();
}
