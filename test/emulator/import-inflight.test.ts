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
});
