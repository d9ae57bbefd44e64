import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ChatModel } from '../../src/chat/chat-model.js';
import { createClient } from '../../emulator/client.js';
import { emulatorHandlers } from '../../emulator/msw.js';
import { fixture } from '../assets/support.js';
import { createParser } from 'eventsource-parser';
import { fileEmulator } from '../support/emulator.js';

/**
 * A model that writes its second token only once the test has seen the first (or, for
 * the message `hold`, never: it waits until the turn is aborted, and records that).
 */
function gatedModel() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const aborted: string[] = [];
  const model: ChatModel = {
    id: 'gated-test-model',
    reply: (input, { signal }) => ({
      tokens: (async function* () {
        try {
          yield 'first ';
          await (input.message === 'hold' ? new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true })) : gate);
          if (!signal.aborted) yield 'second';
        } finally {
          if (signal.aborted) aborted.push(input.message);
        }
      })(),
    }),
  };
  return { model, open, aborted };
}

const gated = gatedModel();
const emulator = await fileEmulator({ seed: 13, chatModel: gated.model });
const { apiKey } = await emulator.createWorkspace();
const auth = { authorization: `Bearer ${apiKey.secret}` };

// A real server on loopback: what requests outside the adapter's scope reach.
const real: Server = createServer((req, res) => res.end(`real ${req.url}`));
real.listen(0, '127.0.0.1');
await once(real, 'listening');
const realOrigin = `http://127.0.0.1:${(real.address() as AddressInfo).port}`;

const API = 'https://api.example.com';
const GATEWAY = `${realOrigin}/prefix`;
const unhandled: string[] = [];
const server = setupServer(...emulatorHandlers(emulator, { baseUrl: API }), ...emulatorHandlers(emulator, { baseUrl: `${GATEWAY}/` }));
beforeAll(() =>
  server.listen({
    onUnhandledRequest: (request, print) => {
      unhandled.push(request.url);
      // Anything but our loopback server fails rather than leaving the machine.
      if (!request.url.startsWith(realOrigin)) print.error();
    },
  }),
);
afterAll(async () => {
  server.close();
  real.close();
});

function httpsGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string | undefined; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], bytes: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

async function createAgentThrough(base: string): Promise<string> {
  const res = await fetch(`${base}/v1/agents`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Ada', identity: { businessName: 'Acme' } }),
  });
  return ((await res.json()) as { id: string }).id;
}

/** An agent that knows something: a plugged model is asked only when retrieval found passages. */
async function agentThatKnowsThrough(base: string): Promise<string> {
  const agentId = await createAgentThrough(base);
  const res = await fetch(`${base}/v1/knowledge/text`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Hold music', text: 'Callers on hold hear a greeting and soft music.', agentId }),
  });
  expect(res.status).toBe(202);
  await emulator.drain();
  return agentId;
}

async function uploadPng(base: string) {
  const form = new FormData();
  form.set('file', new File([fixture('image.png')], 'logo.png'));
  const res = await fetch(`${base}/v1/assets`, { method: 'POST', headers: auth, body: form });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; url: string };
}

describe('emulatorHandlers (MSW)', () => {
  it('answers the production URL from the emulator, and the journal records the request', async () => {
    const res = await fetch(`${API}/v1/me?x=1`, { headers: auth });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(((await res.json()) as { workspaceId: string }).workspaceId).toBeTypeOf('string');
    expect((await emulator.requests(1))[0]).toMatchObject({ method: 'GET', path: '/v1/me', status: 200 });
    // Problem types point under the base URL too.
    const problem = (await (await fetch(`${GATEWAY}/v1/me`)).json()) as { type: string; instance: string };
    expect(problem).toMatchObject({ type: `${GATEWAY}/docs/errors/svc.api_key.invalid`, instance: '/v1/me' });
  });

  it('a base URL with a path prefix: /prefix/v1/... reaches /v1/...; the same host outside the prefix stays unhandled', async () => {
    const inside = await fetch(`${GATEWAY}/v1/me`, { headers: auth });
    expect(inside.status).toBe(200);
    expect(((await inside.json()) as { scopes: string[] }).scopes).toContain('assets:write');
    const outside = await fetch(`${realOrigin}/v1/me`);
    expect(await outside.text()).toBe('real /v1/me');
    const near = await fetch(`${realOrigin}/prefixed/v1/me`);
    expect(await near.text()).toBe('real /prefixed/v1/me');
    expect(unhandled).toEqual([`${realOrigin}/v1/me`, `${realOrigin}/prefixed/v1/me`]);
  });

  it("the package's client under a prefixed base URL keeps the prefix, typed and untyped", async () => {
    for (const base of [GATEWAY, `${GATEWAY}/`]) {
      const api = createClient(base, apiKey.secret);
      const typed = await api.GET('/v1/me');
      expect(typed.status).toBe(200);
      expect(typed.data?.scopes).toContain('assets:write');
      expect((await api.get('/v1/me')).status).toBe(200);
    }
    // A whole URL is sent where it says.
    expect((await createClient(GATEWAY).get(`${realOrigin}/elsewhere`)).text).toBe('real /elsewhere');
  });

  it("other hosts stay unhandled: MSW's onUnhandledRequest decides (here: an error, nothing sent)", async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const before = (await emulator.requests()).length;
    await expect(fetch('https://elsewhere.example.org/v1/me', { headers: auth })).rejects.toThrow();
    expect(unhandled.at(-1)).toBe('https://elsewhere.example.org/v1/me');
    expect(errors.mock.calls.flat().join(' ')).toContain('elsewhere.example.org');
    expect((await emulator.requests()).length).toBe(before);
    errors.mockRestore();
  });

  it('signed asset URLs point under the base URL (prefix included) and are fetchable through the adapter', async () => {
    const png = fixture('image.png');
    for (const base of [API, GATEWAY]) {
      const asset = await uploadPng(base);
      expect(asset.url.startsWith(`${base}/files/${asset.id}?expires=`)).toBe(true);
      const file = await fetch(asset.url);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await file.arrayBuffer()).equals(Buffer.from(png))).toBe(true);
      // The asset as listed later carries a URL under the same base.
      const listed = (await (await fetch(`${base}/v1/assets/${asset.id}`, { headers: auth })).json()) as { url: string };
      expect(listed.url.startsWith(`${base}/files/`)).toBe(true);
    }
  });

  it('node:https reaches it too: JSON and binary answers', async () => {
    const me = await httpsGet(`${API}/v1/me`, auth);
    expect(me.status).toBe(200);
    expect(JSON.parse(me.bytes.toString('utf8')).workspaceId).toBeTypeOf('string');
    const asset = await uploadPng(API);
    const file = await httpsGet(asset.url);
    expect(file).toMatchObject({ status: 200, type: 'image/png' });
    expect(file.bytes.equals(Buffer.from(fixture('image.png')))).toBe(true);
  });

  it('streams SSE as it is written: the first token arrives before the model writes the second', async () => {
    const agentId = await agentThatKnowsThrough(API);
    const res = await fetch(`${API}/v1/agents/${agentId}/chat`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ message: 'What do callers on hold hear?' }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events: { event: string; data: any }[] = [];
    const parser = createParser({ onEvent: (e) => events.push({ event: e.event ?? 'message', data: JSON.parse(e.data) }) });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    // Would wait forever if the adapter buffered the stream: the model waits for us.
    while (!events.some((e) => e.event === 'token')) parser.feed((await reader.read()).value ?? '');
    expect(events.map((e) => e.event)).toEqual(['start', 'token']);
    gated.open();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) parser.feed(chunk.value);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { reply: 'first second' } });
  });

  it('aborting the fetch stops the stream in the emulator (the request signal goes through)', async () => {
    const agentId = await agentThatKnowsThrough(API);
    const controller = new AbortController();
    const res = await fetch(`${API}/v1/agents/${agentId}/chat`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ message: 'hold' }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    // The model saw the abort: the emulator stopped the turn, it did not run on unread.
    await vi.waitFor(() => expect(gated.aborted).toEqual(['hold']));
  });

  it('a base URL that is not absolute http(s) is a clear error at setup', () => {
    for (const bad of ['/v1', 'api.example.com', '', 'ftp://api.example.com', 'https://api.example.com/?v=1', undefined]) {
      expect(() => emulatorHandlers(emulator, { baseUrl: bad as string }), String(bad)).toThrow(/emulatorHandlers: baseUrl must be/);
    }
    expect(() => emulatorHandlers(emulator, { baseUrl: '/v1' })).toThrow(TypeError);
  });
});

describe('a closed emulator behind the adapter (D-1077)', () => {
  it('is a network error to the client, as a stopped server is', async () => {
    const gone = await fileEmulator({ seed: 41 });
    server.use(...emulatorHandlers(gone, { baseUrl: 'https://gone.example.com' }));
    expect((await fetch('https://gone.example.com/v1/me')).status).toBe(401);
    await gone.close();
    await expect(fetch('https://gone.example.com/v1/me')).rejects.toThrow(TypeError);
    // The other emulator's handlers still answer.
    expect((await fetch(`${API}/v1/me`, { headers: auth })).status).toBe(200);
  });
});
