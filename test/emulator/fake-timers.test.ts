import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import { quiet } from '../support/emulator.js';

// A suite that fakes time (vi.useFakeTimers(), Jest's fake timers) fakes the globals:
// setTimeout, setImmediate, setInterval, Date, performance. The emulator's own waits
// (the job queue, a drain, group commits, the worker pool's limits) must not stand
// still with them, or the first drain waits forever (D-1230).
afterEach(() => vi.useRealTimers());

async function agentWithKnowledge(emulator: Emulator) {
  const { apiKey } = await emulator.createWorkspace();
  const headers = { authorization: `Bearer ${apiKey.secret}`, 'content-type': 'application/json' };
  const agent = (await (
    await emulator.fetch('/v1/agents', { method: 'POST', headers, body: JSON.stringify({ name: 'Desk', identity: { businessName: 'Acme' } }) })
  ).json()) as { id: string; createdAt: string };
  const form = new FormData();
  form.set('file', new File(['<main><h1>Opening hours</h1><p>We open from 9:00 to 17:00 on weekdays.</p></main>'], 'hours.html', { type: 'text/html' }));
  form.set('agentId', agent.id);
  const added = await emulator.fetch('/v1/knowledge/uploads', { method: 'POST', headers: { authorization: headers.authorization }, body: form });
  expect(added.status).toBe(202);
  const drained = await emulator.fetch('/_emulator/queue/drain', { method: 'POST' });
  expect(drained.status).toBe(200);
  const source = (await (await emulator.fetch(`/v1/knowledge/sources/${((await added.json()) as { id: string }).id}`, { headers })).json()) as {
    status: string;
  };
  expect(source.status).toBe('ready');
  return { agent, headers };
}

describe("under a test's fake timers (D-1230)", () => {
  it('reads an upload, drains, answers a JSON and a streamed turn, and closes', async () => {
    vi.useFakeTimers();
    const emulator = await createEmulator({ log: quiet, seed: 4 });
    const { agent, headers } = await agentWithKnowledge(emulator);
    const json = await emulator.fetch(`/v1/agents/${agent.id}/chat`, { method: 'POST', headers, body: JSON.stringify({ message: 'When do you open?' }) });
    expect(json.status).toBe(200);
    expect(((await json.json()) as { reply: string }).reply).toContain('9:00');
    const streamed = await emulator.fetch(`/v1/agents/${agent.id}/chat`, {
      method: 'POST',
      headers: { ...headers, accept: 'text/event-stream' },
      body: JSON.stringify({ message: 'What are your weekday hours?' }),
    });
    const events = await streamed.text();
    expect(events).toContain('event: done');
    await emulator.close();
  });

  it("an emulator without a seed reads the process's time as the fake timers set it, installed before or after it", async () => {
    const emulator = await createEmulator({ log: quiet });
    vi.useFakeTimers();
    vi.setSystemTime(Date.UTC(2031, 0, 2, 3, 4, 5));
    const { agent } = await agentWithKnowledge(emulator);
    expect(agent.createdAt).toBe('2031-01-02T03:04:05.000Z');
    await emulator.close();
  });
});
