import { getEventListeners } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import type { ChatModel } from '../../src/chat/chat-model.js';
import { quiet, workspace } from '../support/emulator.js';
import { createAgent, ingest, readEvents, streamRequest } from './support.js';

const TURNS = 16;

/** A model that holds every turn at its first token until `release`; `reached` resolves once `TURNS` turns wait. */
function heldModel() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let waiting = 0;
  let allWaiting!: () => void;
  const reached = new Promise<void>((resolve) => (allWaiting = resolve));
  const model: ChatModel = {
    id: 'held-test-model',
    reply: () => ({
      tokens: (async function* () {
        if (++waiting === TURNS) allWaiting();
        await released;
        yield 'Friday at six.';
      })(),
    }),
  };
  return { model, reached, release };
}

describe('many chat turns at once', () => {
  const held = heldModel();
  const emulatorPromise = createEmulator({ chatModel: held.model, log: quiet });
  afterAll(async () => (await emulatorPromise).close());

  it('answers every one, warns of no memory leak on stderr, and keeps no listener once they end', async () => {
    const emulator = await emulatorPromise;
    const { api, control, key } = await workspace(emulator);
    const agentId = await createAgent(api);
    // The model is asked only when the knowledge holds an answer.
    await ingest(api, control, [{ title: 'Story hour', text: 'Acme tells stories every Friday at six.', agentId }]);
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const stopping = emulator.service.requests.stopping;
      const before = getEventListeners(stopping, 'abort').length;
      // Half JSON turns, half streamed ones, all in flight together, as a parallel test suite sends them.
      const json = Array.from({ length: TURNS / 2 }, (_, i) => api.post(`/v1/agents/${agentId}/chat`, { message: `When is story hour? ${i}` }));
      const streams = Array.from({ length: TURNS / 2 }, (_, i) => streamRequest(emulator, key, agentId, { message: `Story hour? ${i}` }).then(readEvents));
      await held.reached;
      // Every turn listens for the service's stop while it runs.
      expect(getEventListeners(stopping, 'abort').length).toBeGreaterThan(10);
      held.release();
      for (const res of await Promise.all(json)) expect(res.status).toBe(200);
      for (const events of await Promise.all(streams)) expect(events.at(-1)?.event).toBe('done');
      // A warning is emitted on the next tick: let it arrive before looking.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
      expect(getEventListeners(stopping, 'abort').length).toBe(before);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
