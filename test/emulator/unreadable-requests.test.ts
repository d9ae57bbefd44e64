import { connect } from 'node:net';
import { rawRequest, type RawAnswer } from '../support/raw-request.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { fileEmulator, workspace } from '../support/emulator.js';

// Requests node's server reads but cannot make a URL of: a problem document, no route (D-1117).
const emulator = await fileEmulator({ fixtures: 'none', seed: 3 });
const ws = await workspace(emulator);
let port: number;

beforeAll(async () => {
  port = (await emulator.listen({ port: 0 })).port;
});

type Answer = RawAnswer;

/** A request on the port written as given: Host and path exactly as they are (fetch would fix both). */
const raw = (method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> =>
  rawRequest({ port, method, path, headers, setHost: false, ...(body !== undefined && { body }) });

const BAD_HOST = 'The Host header is not a host name or address with an optional port.';

describe('a request the server cannot read as a URL', () => {
  it.each([
    ['a Host with a user part', '/v1/agents', { host: 'user@127.0.0.1' }, BAD_HOST],
    ['a Host with a space', '/v1/agents', { host: 'a b' }, 'The request could not be read.'],
    ['an unclosed IPv6 Host', '/v1/agents', { host: '[::1' }, 'The request could not be read.'],
    ['a backslash in the path', '/v1\\agents', {}, 'The request path holds a backslash; write it as %5C.'],
    // Host names of the characters node-server passes unparsed, which no URL holds (D-1145).
    ['a Host of no IPv4 address (999.999.999.999)', '/v1/agents', { host: '999.999.999.999' }, BAD_HOST],
    ['a Host of five numbers (1.2.3.4.5)', '/v1/agents', { host: '1.2.3.4.5' }, BAD_HOST],
  ])('%s: 400 svc.request.invalid as a problem document with a request id', async (_, path, headers: Record<string, string>, detail) => {
    const answer = await raw('GET', path, { host: `127.0.0.1:${port}`, ...headers, authorization: `Bearer ${ws.key}` });
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(answer.headers['x-request-id']).toMatch(/^req_/);
    const problem = JSON.parse(answer.text);
    // `instance` is a URI reference (D-1166): a backslash in it is written %5C.
    expect(problem).toMatchObject({ status: 400, code: 'svc.request.invalid', title: 'Malformed request', detail, instance: path.replaceAll('\\', '%5C') });
    // The reference is the server's own address, never the Host it could not read.
    expect(problem.type).toBe(`http://127.0.0.1:${port}/docs/errors/svc.request.invalid`);
    expect(problem.requestId).toBe(answer.headers['x-request-id']);
  });

  // Node 20 and 22's URL parser refuses these names; Node 24's takes them (D-1228): then
  // they are answered as a well-formed name of the same place is, and never with a 500.
  it.each([
    ['under localhost', '/v1/agents', 'xn--a.localhost', 'a.localhost'],
    ['on the control plane', '/_emulator/state', 'xn--zz', 'zz'],
    ['on health', '/_emulator/health', 'x.xn--a', 'x.a'],
  ])(
    'a Host of broken punycode %s: 400 svc.request.invalid where the runtime reads no URL of it, else the answer of a good name',
    async (_, path, host, good) => {
      const answer = await raw('GET', path, { host, authorization: `Bearer ${ws.key}` });
      if (!URL.canParse(`http://${host}/`)) {
        expect(answer.status).toBe(400);
        expect(answer.headers['content-type']).toBe('application/problem+json');
        expect(JSON.parse(answer.text)).toMatchObject({ code: 'svc.request.invalid', detail: BAD_HOST, instance: path });
        return;
      }
      const expected = await raw('GET', path, { host: good, authorization: `Bearer ${ws.key}` });
      expect(answer.status).toBe(expected.status);
      expect(answer.headers['content-type']).toBe(expected.headers['content-type']);
      expect(answer.status).toBeLessThan(500);
    },
  );

  it('in Spanish when asked', async () => {
    const answer = await raw('GET', '/v1\\agents', { host: `127.0.0.1:${port}`, 'accept-language': 'es' });
    expect(JSON.parse(answer.text).detail).toBe('La ruta de la solicitud contiene una barra invertida; escríbala como %5C.');
  });

  it('reaches no route: a valid key and body under a bad Host create nothing, and the control plane does not answer', async () => {
    const body = JSON.stringify({ name: 'Should not exist' });
    const headers = {
      host: 'user@127.0.0.1',
      authorization: `Bearer ${ws.key}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    };
    const created = await raw('POST', '/v1/agents', headers, body);
    expect(created.status).toBe(400);
    expect(JSON.parse(created.text).code).toBe('svc.request.invalid');
    expect((await ws.api.get('/v1/agents')).body.data).toEqual([]);
    const state = await raw('GET', '/_emulator/state', { host: 'user@127.0.0.1' });
    expect(state.status).toBe(400);
    expect(state.text).not.toContain('tables');
  });

  it('a well-formed request on the same connection settings is answered as always', async () => {
    const answer = await raw('GET', '/v1/agents', { host: `127.0.0.1:${port}`, authorization: `Bearer ${ws.key}` });
    expect(answer.status).toBe(200);
  });
});

/** Bytes written on a new connection as they are; the whole answer until the server closes it. */
function rawBytes(bytes: Buffer): Promise<{ status: number; headers: Record<string, string>; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const answer = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = answer.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, text: rest.join('\r\n\r\n') });
    });
    // Written, not ended: a client that half-closes may have its connection ended before
    // the answer, as node's server does not allow half-open connections.
    socket.write(bytes);
  });
}

describe("a request node's own parser refuses (D-1168)", () => {
  const latin = (text: string) => Buffer.from(text, 'latin1');
  it.each([
    ['a header block over 16 KiB', latin(`GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${'a'.repeat(20_000)}\r\n\r\n`), 'too large'],
    [
      'a raw byte in the path',
      Buffer.concat([latin('GET /v1/projects/'), Buffer.from([0xe2, 0x82, 0xac]), latin(' HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')]),
      'not valid HTTP',
    ],
    ['Content-Length: abc', latin('POST /v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n'), 'not valid HTTP'],
    ['a control character in a header name', latin('GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nX-B\x01d: 1\r\n\r\n'), 'not valid HTTP'],
  ])('%s: 400 svc.request.invalid as a problem document with a request id, then the connection closes', async (_, bytes, words) => {
    const answer = await rawBytes(bytes);
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(answer.headers['x-request-id']).toMatch(/^req_/);
    expect(answer.headers.connection).toBe('close');
    const problem = JSON.parse(answer.text);
    expect(problem).toMatchObject({ status: 400, code: 'svc.request.invalid', instance: '/', requestId: answer.headers['x-request-id'] });
    expect(problem.detail).toContain(words);
    // Its links point at this server's own address, as every other problem's here.
    expect(problem.type).toBe(`http://127.0.0.1:${port}/docs/errors/svc.request.invalid`);
  });
});
