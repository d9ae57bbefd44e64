import { describe, expect, it } from 'vitest';
import type { ChatModel } from '../../src/chat/chat-model.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { createAgent, ingest, messages, readEvents, streamRequest } from './support.js';

/**
 * A model that holds its reply until `release()`: `called` resolves once it is asked.
 * Meanwhile a test deletes the agent, as a user in another tab (or another process) may.
 */
function heldModel(streamed: boolean) {
  let release!: () => void;
  let started!: () => void;
  const called = new Promise<void>((resolve) => (started = resolve));
  const held = new Promise<void>((resolve) => (release = resolve));
  const model: ChatModel = {
    id: 'held-test-model',
    async reply() {
      started();
      if (streamed) {
        return {
          tokens: (async function* () {
            yield 'Stories ';
            await held;
            yield 'on Fridays.';
          })(),
        };
      }
      await held;
      return {
        text: 'Stories on Fridays.',
        tokens: (async function* () {
          yield 'Stories on Fridays.';
        })(),
      };
    },
  };
  return { model, called, release: () => release() };
}

// A chat turn reads its agent, waits for the model, then records the turn; the agent may
// be deleted in between (D-1132). The turn must then record nothing, so that no
// conversation or message names a deleted agent: the emulator's own export would
// otherwise be refused by its import.
describe('an agent deleted while it answers', () => {
  for (const streamed of [false, true]) {
    it(`${streamed ? 'streamed' : 'JSON'} turn: ${streamed ? 'an error event' : '404'} svc.agent.not_found, no credit spent, nothing recorded; the state exports and imports`, async () => {
      const { model, called, release } = heldModel(streamed);
      const emu = await fileEmulator({ chatModel: model });
      const ws = await workspace(emu);
      const agentId = await createAgent(ws.api);
      await ingest(ws.api, ws.control, [{ title: 'Story hour', text: 'Acme tells stories every Friday at six.', agentId }]);
      const turn = streamed
        ? streamRequest(emu, ws.key, agentId, { message: 'When are the stories?' })
        : ws.api.post(`/v1/agents/${agentId}/chat`, { message: 'When are the stories?' });
      await called;
      expect((await ws.api.delete(`/v1/agents/${agentId}`)).status).toBe(200);
      release();
      if (streamed) {
        const events = await readEvents((await turn) as Response);
        expect(events.map((e) => e.event)).toEqual(['start', 'token', 'token', 'error']);
        expect(events.at(-1)!.data).toMatchObject({ status: 404, code: 'svc.agent.not_found' });
      } else {
        const answer = (await turn) as Awaited<ReturnType<typeof ws.api.post>>;
        expect(answer.status).toBe(404);
        expect(answer.body.code).toBe('svc.agent.not_found');
      }
      expect((await messages(ws.api)).used).toBe(0);
      for (const table of ['conversations', 'chat_messages'] as const) {
        expect(await emu.service.db.selectFrom(table).select('id').where('workspace_id', '=', ws.workspaceId).execute()).toEqual([]);
      }
      await emu.importState(await emu.exportState());
      await emu.close();
    });
  }

  it('streamed turn while a state without its conversation is imported: an error event, no message left naming no conversation (D-1136)', async () => {
    const { model, called, release } = heldModel(true);
    const emu = await fileEmulator({ chatModel: model });
    const ws = await workspace(emu);
    const agentId = await createAgent(ws.api);
    await ingest(ws.api, ws.control, [{ title: 'Story hour', text: 'Acme tells stories every Friday at six.', agentId }]);
    const before = await emu.exportState();
    const turn = streamRequest(emu, ws.key, agentId, { message: 'When are the stories?' });
    await called;
    await emu.importState(before);
    release();
    const events = await readEvents(await turn);
    expect(events.map((e) => e.event)).toEqual(['start', 'token', 'token', 'error']);
    expect(events.at(-1)!.data).toMatchObject({ status: 404 });
    expect(await emu.service.db.selectFrom('chat_messages').select('id').where('workspace_id', '=', ws.workspaceId).execute()).toEqual([]);
    await emu.importState(await emu.exportState());
    await emu.close();
  });
});
