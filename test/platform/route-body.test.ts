import { request as httpRequest } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { fileEmulator, workspace } from '../support/emulator.js';

const emulator = await fileEmulator({ seed: 44 });
const ws = await workspace(emulator);

/** A request whose body must not be asked for: node-server builds a whole Request over the socket when it is (D-1216). */
function bodyUnasked(url: string, init: RequestInit): Request {
  const request = new Request(url, init);
  Object.defineProperty(request, 'body', {
    get() {
      throw new Error('the body of a GET was asked for');
    },
  });
  return request;
}

describe('a route that takes no body (D-1165, D-1216)', () => {
  it('answers a GET without asking the request for a body', async () => {
    const res = await emulator.fetch(bodyUnasked('http://localhost/v1/me', { headers: { authorization: `Bearer ${ws.key}` } }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { workspaceId: string }).workspaceId).toBe(ws.workspaceId);
  });

  it('still reads the body sent to a POST that takes none', async () => {
    const res = await emulator.fetch(
      new Request('http://localhost/_emulator/queue/drain', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":1}' }),
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: unknown }).errors).toEqual([{ field: 'x', reason: 'unknown field' }]);
  });
});

const server = await emulator.listen({ port: 0, host: '127.0.0.1' });
afterAll(() => server.close());

/** One request over the server's socket, its body written as given: whole with its length, or in chunks without one. */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  chunks: (string | Buffer)[] = [],
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { method, headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} });
      });
    });
    // The server may answer 413 before the whole body is sent: the rest is not its business.
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

const auth = { authorization: `Bearer ${ws.key}`, 'content-type': 'application/json' };
const agent = (name: string) => JSON.stringify({ name, identity: { businessName: 'Bodies', description: '' } });

describe('bodies read over the socket (D-1217)', () => {
  it('reads a body of a declared length, and one sent in chunks without a length', async () => {
    const whole = agent('Whole');
    const declared = await send('POST', '/v1/agents', { ...auth, 'content-length': String(Buffer.byteLength(whole)) }, [whole]);
    expect([declared.status, declared.body.name]).toEqual([201, 'Whole']);
    const text = agent('Chunked');
    const chunked = await send('POST', '/v1/agents', { ...auth, 'transfer-encoding': 'chunked' }, [text.slice(0, 10), text.slice(10)]);
    expect([chunked.status, chunked.body.name]).toEqual([201, 'Chunked']);
  });

  it('refuses a body sent in chunks with 413 once it passes the limit, and creates nothing', async () => {
    const before = ((await ws.api.get('/v1/agents?limit=100')).body.data as unknown[]).length;
    const big = ' '.repeat(512 * 1024);
    const chunked = await send('POST', '/v1/agents', { ...auth, 'transfer-encoding': 'chunked' }, ['{"name":"', big, big, big, '"}']);
    expect([chunked.status, chunked.body.code], JSON.stringify(chunked.body)).toEqual([413, 'svc.request.payload_too_large']);
    expect(((await ws.api.get('/v1/agents?limit=100')).body.data as unknown[]).length).toBe(before);
  });

  it('reads what is sent to a route that takes no body, by its headers: nothing, an empty length, or a body with a field', async () => {
    const drain = '/_emulator/queue/drain';
    const json = { 'content-type': 'application/json' };
    expect((await send('POST', drain, {})).status).toBe(200);
    expect((await send('POST', drain, { ...json, 'content-length': '0' })).status).toBe(200);
    const field = await send('POST', drain, { ...json, 'content-length': '7' }, ['{"x":1}']);
    expect([field.status, field.body.errors]).toEqual([400, [{ field: 'x', reason: 'unknown field' }]]);
    const chunked = await send('POST', drain, { ...json, 'transfer-encoding': 'chunked' }, ['{"x":', '1}']);
    expect([chunked.status, chunked.body.errors]).toEqual([400, [{ field: 'x', reason: 'unknown field' }]]);
  });

  it('takes an upload over the socket, its file whole', async () => {
    const form = new FormData();
    form.set('file', new File(['# Bodies\n\nRead whole from the socket.'], 'bodies.md', { type: 'text/markdown' }));
    const res = await fetch(`${server.url}/v1/knowledge/uploads`, { method: 'POST', headers: { authorization: `Bearer ${ws.key}` }, body: form });
    expect(res.status).toBe(202);
    const source = (await res.json()) as { id: string; fileName?: string };
    await emulator.drain();
    const ready = await ws.api.get(`/v1/knowledge/sources/${source.id}`);
    expect(ready.body.status).toBe('ready');
  });
});

describe('a body handed in in process (D-1217)', () => {
  it('is read as a stream whatever length it declares: past the limit, 413 without reading it all', async () => {
    let sent = 0;
    const piece = new TextEncoder().encode(' '.repeat(64 * 1024));
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        // Far past the limit if it were read to its end: it is not.
        if (sent >= 64 * 1024 * 1024) return controller.close();
        sent += piece.byteLength;
        controller.enqueue(piece);
      },
    });
    const res = await emulator.fetch(
      new Request('http://localhost/v1/agents', {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.key}`, 'content-type': 'application/json', 'content-length': '10' },
        body: endless,
        duplex: 'half',
      } as RequestInit),
    );
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([413, 'svc.request.payload_too_large']);
    expect(sent).toBeLessThan(4 * 1024 * 1024);
  });
});

describe('a problem answered over the socket (D-1218)', () => {
  it('carries its request id and rate-limit headers, and the journal records its code', async () => {
    const res = await fetch(`${server.url}/v1/agents/agt_missing`, { headers: { authorization: `Bearer ${ws.key}` } });
    const body = (await res.json()) as { code: string; requestId: string };
    expect([res.status, res.headers.get('content-type'), body.code]).toEqual([404, 'application/problem+json', 'svc.agent.not_found']);
    expect(res.headers.get('x-request-id')).toBe(body.requestId);
    expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
    const [entry] = await emulator.requests(1);
    expect(entry).toMatchObject({ path: '/v1/agents/agt_missing', status: 404, code: 'svc.agent.not_found', requestId: body.requestId });
  });
});
