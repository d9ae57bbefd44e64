import { describe, expect, it } from 'vitest';
import { fileEmulator, workspace } from '../support/emulator.js';
import { html, settled, upload } from './support.js';

const page = html(
  'Network setup',
  `<h1>Network setup</h1>${Array.from({ length: 40 }, (_, i) => `<h2>Interface ${i}</h2><p>The file /etc/network/interfaces names interface eth${i}. Restart it with <code>ifup eth${i}</code>; check it with ip addr.</p>`).join('')}`,
);

/** The upload, as a client reads it back once ready. */
async function ingested(emulator: Awaited<ReturnType<typeof fileEmulator>>) {
  const { api } = await workspace(emulator);
  const res = await api.post('/v1/knowledge/uploads', upload({ name: 'network.html', type: 'text/html', content: page }));
  expect(res.status).toBe(202);
  const source = await settled(emulator, api, res.body.id);
  const { title, lang, status, chunkCount, tokenCount, summary } = source;
  return { title, lang, status, chunkCount, tokenCount, summary };
}

describe('ingestion threads started ahead (D-1000)', () => {
  it('an in-process emulator starts none of its own', async () => {
    const emulator = await fileEmulator({ seed: 3 });
    await workspace(emulator);
    expect(await emulator.service.workers.threads()).toBe(0);
  });

  it('started ahead, the background threads read a document exactly as threads started by it do', async () => {
    // Other limits, so threads of its own: the emulators of a process share theirs (D-1074).
    const cold = await fileEmulator({ seed: 3, workers: { idleTimeoutMs: 29_000 } });
    const warm = await fileEmulator({ seed: 3 });
    await warm.service.warmIngestion();
    expect(await warm.service.workers.threads()).toBe(warm.service.workers.backgroundThreads);
    expect(await cold.service.workers.threads()).toBe(0);
    const read = await ingested(warm);
    expect(read.status).toBe('ready');
    expect(read.chunkCount).toBeGreaterThan(1);
    expect(read).toEqual(await ingested(cold));
  });
});
