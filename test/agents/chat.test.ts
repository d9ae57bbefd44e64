import { describe, expect, it } from 'vitest';
import { client } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';
import { createAgent, messages } from './support.js';

const emulator = await fileEmulator({ seed: 4 });
const doc = (await (await emulator.request('/v1/openapi.json')).json()) as Parameters<typeof expectMatchesOpenApi>[0];

async function setup(options: { credits?: number } = {}) {
  const ws = await workspace(emulator, options);
  const agentId = await createAgent(ws.api);
  const chat = (body: unknown, headers?: Record<string, string>) => ws.api.post(`/v1/agents/${agentId}/chat`, body, headers);
  return { ...ws, agentId, chat };
}

describe('POST /v1/agents/{id}/chat (JSON)', () => {
  it('answers a new conversation, politely, in the language of the message, and spends one credit', async () => {
    const { api, chat } = await setup();
    const en = await chat({ message: 'Do you deliver to Mars?' });
    expect(en.status).toBe(200);
    expectMatchesOpenApi(doc, 'POST', '/v1/agents/{agentId}/chat', 200, en.body);
    expect(en.body).toEqual({
      conversationId: expect.stringMatching(/^cnv_[0-9a-z]{26}$/),
      reply: expect.stringContaining("I'm sorry"),
      components: [],
      cached: false,
    });
    expect(en.body.reply).toContain('Acme');
    const es = await chat({ message: '¿Hacéis envíos a Marte?' });
    expect(es.body.reply).toMatch(/^Lo siento/);
    expect(es.body.conversationId).not.toBe(en.body.conversationId);
    expect(await messages(api)).toEqual({ used: 2, limit: 1000, remaining: 998 });
  });

  it('greets back a greeting with the agent name', async () => {
    const { chat } = await setup();
    expect((await chat({ message: 'Hola' })).body.reply).toBe('¡Hola! Soy Ada, el asistente de Acme. ¿En qué puedo ayudarte?');
    expect((await chat({ message: 'hello!' })).body.reply).toBe("Hello! I'm Ada, the assistant of Acme. How can I help you?");
    // By its name too, and thanks get a thank-you back (D-1066): both were "I'm sorry, I don't have information about that".
    expect((await chat({ message: 'Hi Ada!' })).body.reply).toBe("Hello! I'm Ada, the assistant of Acme. How can I help you?");
    const thanked = await chat({ message: 'Thank you so much, Ada!' });
    expect(thanked.body).toMatchObject({ reply: "You're welcome! Is there anything else I can help you with?", components: [] });
    expect((await chat({ message: '¡Muchas gracias!' })).body.reply).toBe('¡De nada! ¿Puedo ayudarte en algo más?');
    // Sent from a phone, it is a thank-you still (D-1067).
    expect((await chat({ message: 'Thanks!\n\nSent from my iPhone' })).body.reply).toBe("You're welcome! Is there anything else I can help you with?");
    // A name alone, or "you" alone, is no thank-you.
    expect((await chat({ message: 'you' })).body.reply).toMatch(/^I'm sorry/);
  });

  it('continues a conversation with conversationId', async () => {
    const { chat } = await setup();
    const first = await chat({ message: 'Hello' });
    const second = await chat({ message: 'Do you sell bikes?', conversationId: first.body.conversationId });
    expect(second.status).toBe(200);
    expect(second.body.conversationId).toBe(first.body.conversationId);
  });

  it('an unknown conversation, or one of another agent, is 404 svc.resource.not_found and spends nothing', async () => {
    const { api, chat } = await setup();
    const other = await createAgent(api, 'Bob');
    const theirs = await api.post(`/v1/agents/${other}/chat`, { message: 'Hello' });
    const before = await messages(api);
    for (const conversationId of ['cnv_unknown', theirs.body.conversationId]) {
      const res = await chat({ message: 'Hello', conversationId });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body.code).toBe('svc.resource.not_found');
    }
    expect(await messages(api)).toEqual(before);
  });

  it('a conversation of another workspace is not found either', async () => {
    const a = await setup();
    const b = await setup();
    const conversationId = (await a.chat({ message: 'Hello' })).body.conversationId;
    expect((await b.chat({ message: 'Hello', conversationId })).body.code).toBe('svc.resource.not_found');
  });

  it('agentId in the body is 400 svc.chat.agent_scope_conflict, even null, and spends nothing', async () => {
    const { api, chat, agentId } = await setup();
    for (const value of [agentId, null, 'agt_other']) {
      const res = await chat({ message: 'Hello', agentId: value });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('svc.chat.agent_scope_conflict');
    }
    expect((await messages(api)).used).toBe(0);
  });

  it('an unknown agent is 404 svc.agent.not_found', async () => {
    const { api } = await setup();
    const res = await api.post('/v1/agents/agt_unknown/chat', { message: 'Hello' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('svc.agent.not_found');
  });

  it('message is 1 to 4000 characters: 4000 accepted, 4001 and empty refused with svc.request.validation_failed', async () => {
    const { api, chat } = await setup();
    expect((await chat({ message: 'a'.repeat(4000) })).status).toBe(200);
    for (const [body, field] of [
      [{ message: 'a'.repeat(4001) }, 'message'],
      [{ message: '' }, 'message'],
      [{ message: '   ' }, 'message'],
      [{}, 'message'],
      [{ message: 'hi', extra: 1 }, 'extra'],
      [{ message: 'hi', conversationId: 7 }, 'conversationId'],
    ] as const) {
      const res = await chat(body);
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect(res.body.code).toBe('svc.request.validation_failed');
      expect(res.body.errors[0].field).toBe(field);
    }
    expect((await messages(api)).used).toBe(1);
  });

  it('a body that is not JSON is 400 svc.request.invalid', async () => {
    const { key, agentId } = await setup();
    const res = await emulator.request(`/v1/agents/${agentId}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"message":',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('svc.request.invalid');
  });

  it('needs chat:write: 403 svc.api_key.scope_missing, before looking anything up', async () => {
    const ws = await workspace(emulator, { scopes: ['landings:write', 'knowledge:read'] });
    const agentId = await createAgent(ws.api);
    for (const id of [agentId, 'agt_unknown']) {
      const res = await ws.api.post(`/v1/agents/${id}/chat`, { message: 'Hello' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('svc.api_key.scope_missing');
    }
  });
});

describe('credits', () => {
  it('at zero the turn is 402 svc.usage.quota_exhausted and nothing is written', async () => {
    const { api, chat, workspaceId } = await setup({ credits: 1 });
    const first = await chat({ message: 'Hello' });
    expect(first.status).toBe(200);
    const refused = await chat({ message: 'Hello again', conversationId: first.body.conversationId });
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('svc.usage.quota_exhausted');
    const fresh = await chat({ message: 'A new conversation' });
    expect(fresh.status).toBe(402);
    expect(await messages(api)).toEqual({ used: 1, limit: 1, remaining: 0 });
    const rows = await emulator.service.db.selectFrom('conversations').select('id').where('workspace_id', '=', workspaceId).execute();
    expect(rows.map((r) => r.id)).toEqual([first.body.conversationId]);
  });

  it('more credits let the workspace chat again', async () => {
    const { chat, workspaceId, control } = await setup({ credits: 1 });
    await chat({ message: 'Hello' });
    expect((await chat({ message: 'Hello' })).status).toBe(402);
    await control.patch(`/_emulator/workspaces/${workspaceId}`, { credits: 2 });
    expect((await chat({ message: 'Hello' })).status).toBe(200);
  });

  it('parallel turns never spend more credits than exist', async () => {
    const { api, chat } = await setup({ credits: 3 });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => chat({ message: `Question number ${i}` })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(results.filter((r) => r.status === 402)).toHaveLength(7);
    expect(await messages(api)).toEqual({ used: 3, limit: 3, remaining: 0 });
  });

  it('a replay under Idempotency-Key spends nothing and answers the same bytes', async () => {
    const { api, chat } = await setup();
    const first = await chat({ message: 'Do you open on Sundays?' }, { 'idempotency-key': 'turn-1' });
    const replay = await chat({ message: 'Do you open on Sundays?' }, { 'idempotency-key': 'turn-1' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect((await messages(api)).used).toBe(1);
    const conflict = await chat({ message: 'Something else' }, { 'idempotency-key': 'turn-1' });
    expect(conflict.status).toBe(422);
    expect(conflict.body.code).toBe('svc.idempotency.conflict');
    expect((await messages(api)).used).toBe(1);
  });

  it('a refused turn stores no idempotent answer: the key works once credits are back', async () => {
    const { chat, workspaceId, control } = await setup({ credits: 0 });
    expect((await chat({ message: 'Hello' }, { 'idempotency-key': 'k' })).status).toBe(402);
    await control.patch(`/_emulator/workspaces/${workspaceId}`, { credits: 1 });
    const ok = await chat({ message: 'Hello' }, { 'idempotency-key': 'k' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('cached', () => {
  it('is true when the same normalised message was answered for that agent before', async () => {
    const { api, chat } = await setup();
    const first = await chat({ message: 'Do you have gift cards?' });
    expect(first.body.cached).toBe(false);
    const again = await chat({ message: '  do you have GIFT cards ' });
    expect(again.body).toMatchObject({ cached: true, reply: first.body.reply, components: first.body.components });
    expect(again.body.conversationId).not.toBe(first.body.conversationId);
    // Another agent has not answered it.
    const other = await createAgent(api, 'Bob');
    expect((await api.post(`/v1/agents/${other}/chat`, { message: 'Do you have gift cards?' })).body.cached).toBe(false);
  });

  it('a change to the agent a reply reads (name, business, description) is a new answer, not a cached one (D-1091)', async () => {
    const { api, chat, agentId } = await setup();
    expect((await chat({ message: 'Hello' })).body).toMatchObject({ reply: "Hello! I'm Ada, the assistant of Acme. How can I help you?", cached: false });
    expect((await api.patch(`/v1/agents/${agentId}`, { name: 'Zed', identity: { businessName: 'NewCo' } })).status).toBe(200);
    expect((await chat({ message: 'Hello' })).body).toMatchObject({ reply: "Hello! I'm Zed, the assistant of NewCo. How can I help you?", cached: false });
    expect((await chat({ message: 'hello!' })).body).toMatchObject({ reply: "Hello! I'm Zed, the assistant of NewCo. How can I help you?", cached: true });
    // A plugged model reads the description: a new one is a new answer too.
    await api.patch(`/v1/agents/${agentId}`, { identity: { description: 'Bikes for rent in Valencia.' } });
    expect((await chat({ message: 'Hello' })).body.cached).toBe(false);
    // A PATCH that changes nothing a reply reads keeps the cached answer.
    await api.patch(`/v1/agents/${agentId}`, { name: 'Zed' });
    expect((await chat({ message: 'Hello' })).body).toMatchObject({ reply: "Hello! I'm Zed, the assistant of NewCo. How can I help you?", cached: true });
  });

  it('a cached answer still spends its credit', async () => {
    const { api, chat } = await setup();
    await chat({ message: 'Do you have gift cards?' });
    await chat({ message: 'Do you have gift cards?' });
    expect((await messages(api)).used).toBe(2);
  });
});

describe('deleting an agent', () => {
  it('takes its conversations with it', async () => {
    const { api, chat, agentId, workspaceId } = await setup();
    await chat({ message: 'Hello' });
    expect((await api.delete(`/v1/agents/${agentId}`)).status).toBe(200);
    const left = await emulator.service.db.selectFrom('chat_messages').select('id').where('workspace_id', '=', workspaceId).execute();
    expect(left).toEqual([]);
    expect((await client(emulator, api.key).post(`/v1/agents/${agentId}/chat`, { message: 'Hello' })).body.code).toBe('svc.agent.not_found');
  });
});
