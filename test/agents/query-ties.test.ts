import { describe, expect, it } from 'vitest';
import { fileEmulator, workspace } from '../support/emulator.js';
import { createAgent, ingest } from './support.js';

const emulator = await fileEmulator({ seed: 8 });

// Passages with equal evidence were listed in chunk-id order, which is the order their
// uploads arrived in: a test uploading with Promise.all, or two clients, saw one order on
// one run and the other on the next (D-1204).
async function ranked(sources: { title: string; text: string }[], query: string): Promise<{ title: string; text: string; score: number }[]> {
  const ws = await workspace(emulator);
  const agentId = await createAgent(ws.api, 'Mechanic', 'Bike shop');
  await ingest(
    ws.api,
    ws.control,
    sources.map((s) => ({ ...s, agentId })),
  );
  const res = await ws.api.post(`/v1/agents/${agentId}/query`, { query, limit: 10 });
  expect(res.status).toBe(200);
  return res.body.passages;
}

describe('passages of equal evidence', () => {
  it('come in the same order whichever source arrived first: by title, then by text', async () => {
    const sources = [
      { title: 'Chain care', text: 'Bicycle chains want wax weekly.' },
      { title: 'Chain care', text: 'Bicycle chains want oil weekly.' },
      { title: 'Waxing', text: 'Bicycle chains need rags monthly.' },
      { title: 'Oiling', text: 'Bicycle chains need cloth monthly.' },
    ];
    const query = 'bicycle chains';
    const forward = await ranked(sources, query);
    const backward = await ranked([...sources].reverse(), query);
    expect(forward.map((p) => p.text)).toEqual(backward.map((p) => p.text));
    expect(forward.map((p) => p.score)).toEqual(backward.map((p) => p.score));
    // The ties themselves: one title before the other, and under one title the texts in order.
    const order = forward.map((p) => `${p.title}: ${p.text}`);
    expect(order.indexOf('Chain care: Bicycle chains want oil weekly.')).toBeLessThan(order.indexOf('Chain care: Bicycle chains want wax weekly.'));
    expect(order.indexOf('Oiling: Bicycle chains need cloth monthly.')).toBeLessThan(order.indexOf('Waxing: Bicycle chains need rags monthly.'));
    // Still no two different passages on one score (D-761).
    expect(new Set(forward.map((p) => p.score)).size).toBe(forward.length);
  });
});
