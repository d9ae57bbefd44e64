import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import type { ChatModel } from '../../src/chat/chat-model.js';
import { client } from '../support/client.js';
import { workspace } from '../support/emulator.js';
import { createAgent, ingest, messages, readEvents, streamRequest } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-chat-close-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A model that writes a token every 2 ms until it is stopped; `replying` resolves at its first token. */
function endlessModel() {
  let started!: () => void;
  const replying = new Promise<void>((resolve) => (started = resolve));
  const model: ChatModel = {
    id: 'endless-test-model',
    reply: (_input, { signal }) => ({
      tokens: (async function* () {
        for (let i = 0; !signal.aborted; i++) {
          started();
          yield `t${i} `;
          await new Promise((r) => setTimeout(r, 2));
        }
      })(),
    }),
  };
  return { model, replying };
}

/** An emulator on a file of its own, whose log is kept, with a workspace and an agent that knows something. */
async function emulatorWithAgent(chatModel: ChatModel) {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.db`);
  const logged: string[] = [];
  const emulator = await createEmulator({ db: file, chatModel, log: (message) => logged.push(String(message)) });
  const ws = await workspace(emulator);
  const agentId = await createAgent(ws.api);
  await ingest(ws.api, ws.control, [{ title: 'Story hour', text: 'Acme tells stories every Friday at six.', agentId }]);
  return { emulator, file, logged, ws, agentId };
}

/** What the file holds once closed: the workspace's credits spent and its chat messages. */
async function afterwards(file: string, key: string, workspaceId: string) {
  const reopened: Emulator = await createEmulator({ db: file, log: () => {} });
  try {
    const { used } = await messages(client(reopened, key));
    const rows = await reopened.service.db.selectFrom('chat_messages').select('id').where('workspace_id', '=', workspaceId).execute();
    return { used, messages: rows.length };
  } finally {
    await reopened.close();
  }
}

/**
 * A JSON turn asked of a model whose `reply` is `make(started)` (it calls `started` once it
 * has the question), then `close()`: what the caller got, what was logged, what the file keeps.
 */
async function closeDuringJsonTurn(id: string, make: (started: () => void) => ChatModel['reply']) {
  let started!: () => void;
  const replying = new Promise<void>((resolve) => (started = resolve));
  const { emulator, file, logged, ws, agentId } = await emulatorWithAgent({ id, reply: make(started) });
  const answer = ws.api.post(`/v1/agents/${agentId}/chat`, { message: 'Tell me about your stories' });
  await replying;
  const [res] = await Promise.all([answer, emulator.close()]);
  return { res, logged, kept: await afterwards(file, ws.key, ws.workspaceId) };
}

describe('close() while a chat turn is under way (D-1163)', () => {
  it('a stream being read ends with a 503 error event, the turn undone and its credit given back, nothing logged', async () => {
    const { model, replying } = endlessModel();
    const { emulator, file, logged, ws, agentId } = await emulatorWithAgent(model);
    const res = await streamRequest(emulator, ws.key, agentId, { message: 'Tell me about your stories' });
    await replying;
    const [events] = await Promise.all([readEvents(res), emulator.close()]);
    expect(events[0]!.event).toBe('start');
    expect(events.at(-1)).toMatchObject({ event: 'error', data: { status: 503, code: 'svc.service.unavailable' } });
    expect(events.at(-1)!.data.detail).toContain('stopped');
    expect(logged).toEqual([]);
    expect(await afterwards(file, ws.key, ws.workspaceId)).toEqual({ used: 0, messages: 0 });
  });

  it('a stream nobody reads does not hold the close up; the turn is undone all the same', async () => {
    const { model, replying } = endlessModel();
    const { emulator, file, logged, ws, agentId } = await emulatorWithAgent(model);
    const res = await streamRequest(emulator, ws.key, agentId, { message: 'Tell me about your stories' });
    expect(res.status).toBe(200);
    await replying;
    await emulator.close();
    expect(logged).toEqual([]);
    expect(await afterwards(file, ws.key, ws.workspaceId)).toEqual({ used: 0, messages: 0 });
    // What was written stays for the client, the error event last.
    const events = await readEvents(res);
    expect(events.at(-1)).toMatchObject({ event: 'error', data: { status: 503, code: 'svc.service.unavailable' } });
  });

  it('a JSON turn waiting for its model answers 503, spends nothing, logs nothing', async () => {
    const { res, logged, kept } = await closeDuringJsonTurn('waiting-test-model', (started) => async (_input, { signal }) => {
      started();
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      return {
        text: 'Too late.',
        tokens: (async function* () {
          yield 'Too late.';
        })(),
      };
    });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'svc.service.unavailable' });
    expect(logged).toEqual([]);
    expect(kept).toEqual({ used: 0, messages: 0 });
  });
});

describe('close() while a chat model that ignores its signal answers (D-1206)', () => {
  it('a JSON turn whose model never answers: close() ends, the call answers 503, nothing spent or logged', async () => {
    const { res, logged, kept } = await closeDuringJsonTurn('deaf-test-model', (started) => () => {
      started();
      return new Promise(() => {});
    });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'svc.service.unavailable' });
    expect(logged).toEqual([]);
    expect(kept).toEqual({ used: 0, messages: 0 });
  });

  it('a JSON turn whose model throws its own abort error when stopped answers 503, as one that returns', async () => {
    const { res, logged, kept } = await closeDuringJsonTurn('throwing-test-model', (started) => async (_input, { signal }) => {
      started();
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      throw signal.reason;
    });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'svc.service.unavailable' });
    expect(logged).toEqual([]);
    expect(kept).toEqual({ used: 0, messages: 0 });
  });

  it('a stream whose model stops sending tokens: close() ends, the stream says 503, the turn is undone', async () => {
    let started!: () => void;
    const replying = new Promise<void>((resolve) => (started = resolve));
    const model: ChatModel = {
      id: 'stalled-test-model',
      reply: () => ({
        tokens: (async function* () {
          yield 'Once ';
          started();
          await new Promise(() => {});
        })(),
      }),
    };
    const { emulator, file, logged, ws, agentId } = await emulatorWithAgent(model);
    const res = await streamRequest(emulator, ws.key, agentId, { message: 'Tell me about your stories' });
    // Read from the start: the first token waits for its reader before the model is asked for more.
    const reading = readEvents(res);
    await replying;
    await emulator.close();
    const events = await reading;
    expect(events.map((e) => e.event)).toEqual(['start', 'token', 'error']);
    expect(events.at(-1)).toMatchObject({ event: 'error', data: { status: 503, code: 'svc.service.unavailable' } });
    expect(logged).toEqual([]);
    expect(await afterwards(file, ws.key, ws.workspaceId)).toEqual({ used: 0, messages: 0 });
  });
});
