import { encode } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import type { ChatModel } from '../../src/chat/chat-model.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { createAgent, ingest, messages, readEvents, streamRequest } from './support.js';

/**
 * A model that writes `count` tokens, 2 ms apart, and remembers how many it produced
 * and whether it was closed: it shows when a stream stops the work.
 */
function slowModel(count: number, failAt?: number) {
  const state = { produced: 0, closed: false };
  const model: ChatModel = {
    id: 'slow-test-model',
    reply: (_input, { signal }) => ({
      tokens: (async function* () {
        try {
          for (let i = 0; i < count && !signal.aborted; i++) {
            if (i === failAt) throw new Error('model crashed');
            await new Promise((r) => setTimeout(r, 2));
            state.produced++;
            yield `t${i} `;
          }
        } finally {
          state.closed = true;
        }
      })(),
    }),
  };
  return { model, state };
}

const emulator = await fileEmulator({ seed: 6 });

async function setup(options: { credits?: number } = {}) {
  const ws = await workspace(emulator, options);
  const agentId = await createAgent(ws.api);
  return { ...ws, agentId, stream: (body: unknown, headers?: Record<string, string>) => streamRequest(emulator, ws.key, agentId, body, headers) };
}

describe('streamed chat (Accept: text/event-stream)', () => {
  it('sends start, one token per token, and done with the whole answer; the tokens joined are the reply', async () => {
    const { api, stream } = await setup();
    const res = await stream({ message: 'Do you deliver on Sundays?' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const events = await readEvents(res);
    const names = events.map((e) => e.event);
    expect(names[0]).toBe('start');
    expect(names.at(-1)).toBe('done');
    expect(names.slice(1, -1).every((n) => n === 'token')).toBe(true);
    const tokens = events.filter((e) => e.event === 'token').map((e) => e.data.text as string);
    expect(tokens.length).toBeGreaterThan(10);
    const done = events.at(-1)!.data;
    expect(done).toEqual({ conversationId: events[0]!.data.conversationId, reply: tokens.join(''), components: [], cached: false });
    expect(done.reply).toMatch(/^I'm sorry/);
    // One event per model token (o200k_base): as many as the encoder counts in the reply.
    expect(tokens).toHaveLength(encode(done.reply).length);
    expect((await messages(api)).used).toBe(1);
  });

  it('answers the same reply as the JSON turn, and a repeated message streams as cached', async () => {
    const { api, agentId, stream } = await setup();
    const json = await api.post(`/v1/agents/${agentId}/chat`, { message: 'Hola' });
    const events = await readEvents(await stream({ message: 'hola' }));
    expect(events.at(-1)!.data).toMatchObject({ reply: json.body.reply, cached: true });
  });

  it('continues a conversation', async () => {
    const { stream } = await setup();
    const first = (await readEvents(await stream({ message: 'Hello' }))).at(-1)!.data;
    const second = await readEvents(await stream({ message: 'Do you sell bikes?', conversationId: first.conversationId }));
    expect(second[0]!.data.conversationId).toBe(first.conversationId);
  });

  it('refuses before the first byte with a problem document: validation, conflict, agent, conversation, credits', async () => {
    const { api, key, stream } = await setup({ credits: 0 });
    const cases: [Promise<Response>, number, string][] = [
      [stream({ message: '' }), 400, 'svc.request.validation_failed'],
      [stream({ message: 'Hello', agentId: 'agt_x' }), 400, 'svc.chat.agent_scope_conflict'],
      [streamRequest(emulator, key, 'agt_unknown', { message: 'Hello' }), 404, 'svc.agent.not_found'],
      [stream({ message: 'Hello', conversationId: 'cnv_nope' }), 404, 'svc.resource.not_found'],
      [stream({ message: 'Hello' }), 402, 'svc.usage.quota_exhausted'],
      [streamRequest(emulator, 'svc_test_bad', 'agt_unknown', { message: 'Hello' }), 401, 'svc.api_key.invalid'],
    ];
    for (const [pending, status, code] of cases) {
      const res = await pending;
      expect(res.status, code).toBe(status);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(((await res.json()) as { code: string }).code).toBe(code);
    }
    expect((await messages(api)).used).toBe(0);
  });

  it('ignores Idempotency-Key: each stream spends a credit and is never replayed', async () => {
    const { api, stream } = await setup();
    const a = await stream({ message: 'Hello' }, { 'idempotency-key': 'same' });
    const aEvents = await readEvents(a);
    const b = await stream({ message: 'Hello' }, { 'idempotency-key': 'same' });
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    const bEvents = await readEvents(b);
    expect(bEvents[0]!.data.conversationId).not.toBe(aEvents[0]!.data.conversationId);
    expect((await messages(api)).used).toBe(2);
  });

  it('parallel streams never spend more credits than exist', async () => {
    const { api, stream } = await setup({ credits: 2 });
    const results = await Promise.all(Array.from({ length: 6 }, () => stream({ message: 'Hello' })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 402, 402, 402, 402]);
    await Promise.all(results.map((r) => r.body?.cancel()));
    expect((await messages(api)).remaining).toBe(0);
  });
});

// A plugged model is asked only when retrieval found passages: the agent knows something.
async function agentThatKnows(ws: Awaited<ReturnType<typeof workspace>>): Promise<string> {
  const agentId = await createAgent(ws.api);
  await ingest(ws.api, ws.control, [{ title: 'Story hour', text: 'Acme tells stories every Friday at six.', agentId }]);
  return agentId;
}

describe('a reply quoting special-token text (D-1075)', () => {
  it('answers as JSON and streams it: "<|endoftext|>" and "<|im_start|>" in the knowledge are text, token events joined give them back', async () => {
    const { api, control, stream } = await setup();
    const marker = 'The log files of the model end with <|endoftext|> and every prompt opens with <|im_start|> system.';
    await ingest(api, control, [{ title: 'Model logs', text: marker }]);
    const json = await api.post(`/v1/agents/${(await api.get('/v1/agents')).body.data[0].id}/chat`, { message: 'How do the log files of the model end?' });
    expect(json.status).toBe(200);
    expect(json.body.reply).toContain('<|endoftext|>');
    const events = await readEvents(await stream({ message: 'How does every prompt open in the model logs?' }));
    expect(events.map((e) => e.event).at(-1)).toBe('done');
    const tokens = events.filter((e) => e.event === 'token').map((e) => e.data.text as string);
    const done = events.at(-1)!.data;
    expect(tokens.join('')).toBe(done.reply);
    expect(done.reply).toContain('<|im_start|>');
  });
});

describe('a stream and its model', () => {
  it('a client that disconnects stops the work; the unanswered question keeps its credit spent', async () => {
    const { model, state } = slowModel(200);
    const emu = await fileEmulator({ chatModel: model });
    const ws = await workspace(emu);
    const agentId = await agentThatKnows(ws);
    const events = await readEvents(await streamRequest(emu, ws.key, agentId, { message: 'Tell me about your stories' }), 4);
    expect(events.map((e) => e.event)).toEqual(['start', 'token', 'token', 'token']);
    await new Promise((r) => setTimeout(r, 100));
    expect(state.closed).toBe(true);
    expect(state.produced).toBeLessThan(20);
    expect((await messages(ws.api)).used).toBe(1);
    const answers = await emu.service.db.selectFrom('chat_messages').select('role').where('workspace_id', '=', ws.workspaceId).execute();
    expect(answers.map((r) => r.role)).toEqual(['user']);
  });

  it('over a real socket too: closing the connection stops the model', async () => {
    const { model, state } = slowModel(500);
    const emu = await fileEmulator({ chatModel: model });
    const server = await emu.listen();
    const ws = await workspace(emu);
    const agentId = await agentThatKnows(ws);
    const controller = new AbortController();
    const res = await fetch(`${server.url}/v1/agents/${agentId}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ message: 'Tell me about your stories' }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await new Promise((r) => setTimeout(r, 150));
    expect(state.closed).toBe(true);
    expect(state.produced).toBeLessThan(100);
    await server.close();
  });

  it('a failure after the start is an error event with a problem document; the credit comes back', async () => {
    const { model } = slowModel(10, 3);
    const emu = await fileEmulator({ chatModel: model });
    const ws = await workspace(emu);
    const agentId = await agentThatKnows(ws);
    const events = await readEvents(await streamRequest(emu, ws.key, agentId, { message: 'Tell me about your stories' }));
    expect(events.map((e) => e.event)).toEqual(['start', 'token', 'token', 'token', 'error']);
    expect(events.at(-1)!.data).toMatchObject({
      status: 500,
      code: 'svc.internal.error',
      instance: `/v1/agents/${agentId}/chat`,
      requestId: expect.stringMatching(/^req_/),
    });
    expect(JSON.stringify(events.at(-1)!.data)).not.toContain('model crashed');
    expect((await messages(ws.api)).used).toBe(0);
    // The question is gone; the conversation `start` announced stays, empty (D-1090).
    const left = await emu.service.db.selectFrom('chat_messages').select('id').where('workspace_id', '=', ws.workspaceId).execute();
    expect(left).toEqual([]);
  });

  it('the conversation a failed stream announced takes the retry and continues, with no trace of the failed turn (D-1090)', async () => {
    let fail = true;
    const model: ChatModel = {
      id: 'flaky-test-model',
      reply: () => {
        const failing = fail;
        return {
          tokens: (async function* () {
            yield 'Stories ';
            if (failing) throw new Error('provider dropped');
            yield 'on Fridays.';
          })(),
        };
      },
    };
    const emu = await fileEmulator({ chatModel: model });
    const ws = await workspace(emu);
    const agentId = await agentThatKnows(ws);
    const question = { message: 'When are the stories?' };
    const failed = await readEvents(await streamRequest(emu, ws.key, agentId, question));
    expect(failed.map((e) => e.event)).toEqual(['start', 'token', 'error']);
    const { conversationId } = failed[0]!.data;
    expect((await messages(ws.api)).used).toBe(0);
    fail = false;
    const retry = await ws.api.post(`/v1/agents/${agentId}/chat`, { ...question, conversationId });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ conversationId, reply: 'Stories on Fridays.', components: expect.any(Array), cached: false });
    // A streamed retry continues it too.
    const streamed = await readEvents(await streamRequest(emu, ws.key, agentId, { message: 'And next week?', conversationId }));
    expect(streamed.at(-1)).toMatchObject({ event: 'done', data: { conversationId, reply: 'Stories on Fridays.' } });
    const history = await emu.service.db
      .selectFrom('chat_messages')
      .select(['role', 'content'])
      .where('conversation_id', '=', conversationId)
      .orderBy('id')
      .execute();
    expect(history).toEqual([
      { role: 'user', content: 'When are the stories?' },
      { role: 'assistant', content: 'Stories on Fridays.' },
      { role: 'user', content: 'And next week?' },
      { role: 'assistant', content: 'Stories on Fridays.' },
    ]);
    expect((await messages(ws.api)).used).toBe(2);
  });

  it('the JSON turn of a failing model is a 500 that spends nothing', async () => {
    const { model } = slowModel(10, 0);
    const emu = await fileEmulator({ chatModel: model });
    const ws = await workspace(emu);
    const agentId = await agentThatKnows(ws);
    const res = await ws.api.post(`/v1/agents/${agentId}/chat`, { message: 'When are the stories?' });
    expect(res.status).toBe(500);
    expect(res.body.code).toBe('svc.internal.error');
    expect((await messages(ws.api)).used).toBe(0);
    // No id was announced: nothing is left behind, no conversation either (D-1090).
    const left = await emu.service.db.selectFrom('conversations').select('id').where('workspace_id', '=', ws.workspaceId).execute();
    expect(left).toEqual([]);
  });

  it('a model that has the reply at once hands it over whole: a JSON turn takes its text, a stream its tokens', async () => {
    const read = { tokens: 0 };
    const model: ChatModel = {
      id: 'whole-test-model',
      reply: () => ({
        text: 'Stories on Fridays.',
        tokens: (async function* () {
          read.tokens++;
          yield 'Stories ';
          yield 'on Fridays.';
        })(),
      }),
    };
    const emu = await fileEmulator({ chatModel: model });
    const ws = await workspace(emu);
    const agentId = await agentThatKnows(ws);
    const json = await ws.api.post(`/v1/agents/${agentId}/chat`, { message: 'When are the stories?' });
    expect(json.body.reply).toBe('Stories on Fridays.');
    expect(read.tokens).toBe(0);
    const events = await readEvents(await streamRequest(emu, ws.key, agentId, { message: 'Are there stories this week?' }));
    expect(events.filter((e) => e.event === 'token').map((e) => e.data.text)).toEqual(['Stories ', 'on Fridays.']);
    expect(read.tokens).toBe(1);
  });
});
