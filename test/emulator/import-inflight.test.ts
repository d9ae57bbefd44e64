import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { fileForm } from '../brand/support.js';
import { client } from '../support/client.js';
import { quiet } from '../support/emulator.js';

// An SVG with many paths: sanitising it keeps a worker thread busy for a while.
const paths = Array.from({ length: 4000 }, (_, i) => `<path d="M${i} 0 L${i} 10" stroke="#000"/>`).join('');
const svg = new TextEncoder().encode(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">${paths}</svg>`);

describe('a state import while requests are served (D-1136)', () => {
  it('a request whose work is on a worker thread when the state is imported answers, never a 500', async () => {
    const emulator = await createEmulator({ fixtures: 'none', log: quiet });
    const ws = await emulator.createWorkspace();
    const api = client(emulator, ws.apiKey.secret);
    const site = (await api.post('/v1/projects', { name: 'Site', slug: 'inflight' })).body;
    const state = await emulator.exportState();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const put = api.put(`/v1/projects/${site.id}/brand/logo`, fileForm(svg, 'logo.svg'));
      await new Promise((resolve) => setTimeout(resolve, 5 + 5 * i));
      await emulator.importState(state);
      statuses.push((await put).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    await emulator.close();
  });

  it('writes sent while the state is exported, then imported: every later write goes in, no id given twice (D-1137)', async () => {
    const emulator = await createEmulator({ fixtures: 'none', seed: 7, log: quiet });
    const ws = await emulator.createWorkspace();
    const api = client(emulator, ws.apiKey.secret);
    const add = (title: string) => api.post('/v1/knowledge/text', { title, text: 'Returns are free within thirty days.' });
    const statuses: number[] = [];
    for (let round = 0; round < 3; round++) {
      const during = Array.from({ length: 8 }, (_, i) => add(`During ${round}.${i}`));
      const state = await emulator.exportState();
      statuses.push(...(await Promise.all(during)).map((r) => r.status));
      await emulator.importState(state);
      // The imported stream goes on from where the state's rows end.
      for (let i = 0; i < 30; i++) statuses.push((await add(`After ${round}.${i}`)).status);
    }
    expect(statuses.filter((s) => s !== 202)).toEqual([]);
    await emulator.close();
  });

  it('queries answer from the imported chunks, not from an index built before the import, even where the sources look the same (D-1138)', async () => {
    const emulator = await createEmulator({ fixtures: 'none', seed: 3, log: quiet });
    const ws = await emulator.createWorkspace();
    const api = client(emulator, ws.apiKey.secret);
    const agentId = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id;
    await api.post('/v1/knowledge/text', { title: 'Fleet', text: 'The alpha boat sails at dawn.' });
    await emulator.drain();
    const texts = async (query: string) =>
      ((await api.post(`/v1/agents/${agentId}/query`, { query, topics: [] })).body.passages as { text: string }[]).map((p) => p.text);
    expect(await texts('alpha boat')).toEqual(['The alpha boat sails at dawn.']);
    // A state file edited by hand: the same source, its chunk saying something else.
    const state = await emulator.exportState();
    for (const chunk of state.tables.knowledge_chunks ?? []) chunk.text = String(chunk.text).replace('alpha', 'zulu');
    await emulator.importState(state);
    expect(await texts('zulu boat')).toEqual(['The zulu boat sails at dawn.']);
    await emulator.close();
  });
});
