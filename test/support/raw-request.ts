import { request, type IncomingHttpHeaders } from 'node:http';

/** What a raw request answered: its status, headers and body as text. */
export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface RawRequest {
  port: number;
  /** The address connected to (127.0.0.1). */
  host?: string;
  method?: string;
  /** Sent exactly as written (fetch would normalise it). */
  path: string;
  /** Any header, `Host` included (fetch would not let a test choose it). */
  headers?: Record<string, string>;
  body?: string;
  /** The local address the connection comes from (a visitor's). */
  localAddress?: string;
  /** `false`: no `Host` header unless `headers` has one. */
  setHost?: boolean;
}

/**
 * One request on a real port, written as given, through `node:http`: the tests of what
 * the server does with a request a browser or fetch would never send.
 */
export function rawRequest(options: RawRequest): Promise<RawAnswer> {
  const { port, host = '127.0.0.1', method = 'GET', path, headers = {}, body, localAddress, setHost } = options;
  return new Promise((resolve, reject) => {
    const req = request({ host, port, method, path, headers, ...(localAddress && { localAddress }), ...(setHost === false && { setHost }) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
