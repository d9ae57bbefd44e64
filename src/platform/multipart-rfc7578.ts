import busboy from 'busboy';

/**
 * A `multipart/form-data` body read by busboy, for the bodies the platform's (undici)
 * parser refuses though RFC 7578 clients send them (D-1194): a file name given as
 * `filename*=UTF-8''…` (RFC 5987; .NET's HttpClient writes it for any name outside
 * ASCII), or with a quote escaped as `\"` (curl, Go). The entries keep the body's
 * order. Rejects when busboy cannot read the body either.
 *
 * A file part's `Content-Type` parameters (a charset) are not kept: busboy gives the
 * media type alone.
 */
export function readRfc7578(bytes: Uint8Array, contentType: string, limit: number): Promise<FormData> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      // Raw names are UTF-8, as browsers and undici read them (busboy's default is Latin-1).
      parser = busboy({ headers: { 'content-type': contentType }, defParamCharset: 'utf8', limits: { fieldSize: limit, fileSize: limit } });
    } catch (error) {
      reject(error);
      return;
    }
    // Each part takes its place when it starts: a file's bytes end after the next field may begin.
    const entries: (readonly [string, string | File] | undefined)[] = [];
    let open = 0;
    let closed = false;
    const done = () => {
      if (!closed || open > 0) return;
      const form = new FormData();
      for (const entry of entries) if (entry) form.append(entry[0], entry[1]);
      resolve(form);
    };
    parser.on('field', (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) reject(new Error('a field is longer than the body may be'));
      entries.push([name, value]);
    });
    parser.on('file', (name, stream, info) => {
      const at = entries.push(undefined) - 1;
      const chunks: Buffer[] = [];
      open += 1;
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => reject(new Error('a file is longer than the body may be')));
      stream.on('error', reject);
      stream.on('end', () => {
        entries[at] = [name, new File(chunks, info.filename ?? '', { type: info.mimeType })];
        open -= 1;
        done();
      });
    });
    parser.on('error', reject);
    parser.on('close', () => {
      closed = true;
      done();
    });
    parser.end(bytes);
  });
}
