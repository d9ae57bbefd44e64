import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { openAiChatModel } from '../../src/chat/openai-adapter.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { createAgent, ingest, messages, readEvents, streamRequest } from './support.js';

/**
 * A local stand-in for an OpenAI-compatible endpoint: `POST /v1/chat/completions`
 * streamed as `data: {choices:[{delta:{content}}]}` events and `data: [DONE]`.
 */
interface StubBehaviour {
  status?: number;
  deltas?: string[];
  delayMs?: number;
  /** Closes the connection after this many deltas. */
  dropAfter?: number;
}
const requests: { headers: IncomingMessage['headers']; body: any; closedEarly?: boolean }[] = [];
let behaviour: StubBehaviour = {};

const stub = createServer(async (req: IncomingMessage, res: ServerResponse) => {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  const entry: (typeof requests)[number] = { headers: req.headers, body: JSON.parse(raw) };
  requests.push(entry);
  if (req.url !== '/v1/chat/completions' || behaviour.status) {
    res.writeHead(behaviour.status ?? 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'secret provider detail' } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.on('close', () => {
    if (!res.writableFinished) entry.closedEarly = true;
  });
  const deltas = behaviour.deltas ?? ['Hola', ', soy', ' un', ' modelo', '.'];
  for (const [i, content] of deltas.entries()) {
    if (res.destroyed) return;
    if (behaviour.dropAfter === i) {
      res.destroy();
      return;
    }
    res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`);
    if (behaviour.delayMs) await new Promise((r) => setTimeout(r, behaviour.delayMs));
  }
  res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
  res.end('data: [DONE]\n\n');
});
await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
const baseUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}/v1`;
afterAll(() => new Promise<void>((r) => stub.close(() => r())));

const emulator = await fileEmulator({ chatModel: openAiChatModel({ baseUrl, model: 'stub-1', apiKey: 'sk-test', timeoutMs: 10_000 }) });

beforeEach(() => {
  behaviour = {};
  requests.length = 0;
});

// The model is asked only when retrieval found something: every question below is
// about this knowledge.
const STORY_CLUB = {
  title: 'Acme story club',
  text: 'Acme tells a story every Friday evening. A long story lasts an hour. Children learn to count to three with songs.\n\nEl club de cuentos de Acme cuenta un cuento cada viernes.',
};

async function setup() {
  const ws = await workspace(emulator);
  const agentId = await createAgent(ws.api, 'Ada', 'Acme');
  await ingest(ws.api, ws.control, [{ ...STORY_CLUB, agentId }]);
  return { ...ws, agentId };
}

describe('openAiChatModel against a local OpenAI-compatible stub', () => {
  it('sends the model, the key, the instructions and the message, and answers the streamed text', async () => {
    const { api, agentId } = await setup();
    const res = await api.post(`/v1/agents/${agentId}/chat`, { message: '¿Qué día cuentan un cuento?' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ reply: 'Hola, soy un modelo.', cached: false });
    expect(res.body.components).toEqual([{ type: 'sources', items: [{ sourceId: expect.any(String), title: 'Acme story club' }] }]);
    const sent = requests[0]!;
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.body).toMatchObject({ model: 'stub-1', stream: true, temperature: 0 });
    expect(sent.body.messages[0].role).toBe('system');
    expect(sent.body.messages[0].content).toContain('You are Ada, the assistant of Acme.');
    expect(sent.body.messages[0].content).toContain('Answer in Spanish');
    expect(sent.body.messages[0].content).toContain('Acme tells a story every Friday evening.');
    expect(sent.body.messages.at(-1)).toEqual({ role: 'user', content: '¿Qué día cuentan un cuento?' });
  });

  it('is not asked when retrieval found nothing: the polite fallback, citing nothing', async () => {
    const { api, agentId } = await setup();
    const res = await api.post(`/v1/agents/${agentId}/chat`, { message: 'Do you rent kayaks by the harbour?' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      reply: "I'm sorry, I don't have information about that yet. You can ask me something else or contact Acme directly.",
      components: [],
    });
    expect(requests).toEqual([]);
    expect((await messages(api)).used).toBe(1);
  });

  it('passes the earlier turns of the conversation', async () => {
    const { api, agentId } = await setup();
    const first = await api.post(`/v1/agents/${agentId}/chat`, { message: 'When do you tell a story?' });
    await api.post(`/v1/agents/${agentId}/chat`, { message: 'And how long is a long story?', conversationId: first.body.conversationId });
    expect(requests[1]!.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'When do you tell a story?' },
      { role: 'assistant', content: 'Hola, soy un modelo.' },
      { role: 'user', content: 'And how long is a long story?' },
    ]);
  });

  it('streams each delta as one token event', async () => {
    const { key, agentId } = await setup();
    behaviour = { deltas: ['One', ' two', ' three'] };
    const events = await readEvents(await streamRequest(emulator, key, agentId, { message: 'Can children learn to count to three?' }));
    expect(events.map((e) => e.event)).toEqual(['start', 'token', 'token', 'token', 'done']);
    expect(events.filter((e) => e.event === 'token').map((e) => e.data.text)).toEqual(['One', ' two', ' three']);
    expect(events.at(-1)!.data.reply).toBe('One two three');
  });

  it('a provider error is 503 svc.service.unavailable without its detail, and spends nothing', async () => {
    const { api, agentId } = await setup();
    behaviour = { status: 500 };
    const res = await api.post(`/v1/agents/${agentId}/chat`, { message: 'Which evening is the story?' });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('svc.service.unavailable');
    expect(res.text).not.toContain('secret provider detail');
    expect((await messages(api)).used).toBe(0);
  });

  it('a connection dropped mid-stream is an error event, and the credit comes back', async () => {
    const { api, key, agentId } = await setup();
    behaviour = { deltas: ['a', 'b', 'c', 'd'], dropAfter: 2, delayMs: 30 };
    const events = await readEvents(await streamRequest(emulator, key, agentId, { message: 'Tell me a story' }));
    expect(events.map((e) => e.event)).toEqual(['start', 'token', 'token', 'error']);
    expect(events.slice(1, 3).map((e) => e.data.text)).toEqual(['a', 'b']);
    expect(events.at(-1)!.data.code).toBe('svc.service.unavailable');
    expect((await messages(api)).used).toBe(0);
  });

  it('a client that leaves stops the upstream request', async () => {
    const { key, agentId } = await setup();
    behaviour = { deltas: Array.from({ length: 200 }, (_, i) => `w${i} `), delayMs: 5 };
    await readEvents(await streamRequest(emulator, key, agentId, { message: 'Tell me a long story' }), 3);
    await new Promise((r) => setTimeout(r, 200));
    expect(requests[0]!.closedEarly).toBe(true);
  });

  it('an unreachable endpoint is 503', async () => {
    const emu = await fileEmulator({ chatModel: openAiChatModel({ baseUrl: 'http://127.0.0.1:1/v1', model: 'none' }) });
    const ws = await workspace(emu);
    const agentId = await createAgent(ws.api);
    await ingest(ws.api, ws.control, [{ ...STORY_CLUB, agentId }]);
    const res = await ws.api.post(`/v1/agents/${agentId}/chat`, { message: 'Which evening is the story?' });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('svc.service.unavailable');
  });

  it('logs why the provider failed for the operator, and sends none of it', async () => {
    const logged: { message: string; error: unknown }[] = [];
    const emu = await fileEmulator({
      chatModel: openAiChatModel({ baseUrl: 'http://127.0.0.1:1/v1', model: 'none' }),
      log: (message, error) => logged.push({ message, error }),
    });
    const ws = await workspace(emu);
    const agentId = await createAgent(ws.api);
    await ingest(ws.api, ws.control, [{ ...STORY_CLUB, agentId }]);
    const res = await ws.api.post(`/v1/agents/${agentId}/chat`, { message: 'Which evening is the story?' });
    expect(res.status).toBe(503);
    expect(res.text).not.toContain('127.0.0.1');
    expect(res.text).not.toContain('fetch failed');
    const entries = logged.filter((l) => l.message.startsWith('svc.service.unavailable'));
    expect(entries.map((l) => l.message)).toEqual([`svc.service.unavailable on POST /v1/agents/${agentId}/chat (${res.headers.get('x-request-id')})`]);
    expect(entries[0]!.error).toBeInstanceOf(Error);
  });
});
