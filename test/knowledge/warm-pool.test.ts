import { describe, expect, it } from 'vitest';
import { rehearsalTexts } from '../../emulator/cli/rehearsals.js';
import { EXTRACT_WORKER } from '../../src/knowledge/pipeline/worker-ref.js';
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

describe("threads that rehearse on the package's own pages while idle (D-1220)", () => {
  const texts = rehearsalTexts();

  it('are given real prose in both languages, the same on every start', () => {
    expect(texts.length).toBeGreaterThanOrEqual(40);
    expect(texts).toEqual(rehearsalTexts());
    expect(texts.every((t) => t.length <= 6_000)).toBe(true);
    expect(texts.some((t) => /^#{1,3} /mu.test(t) && /```/u.test(t))).toBe(true);
    expect(texts.filter((t) => /\b(?:tiene|nuestros|para|los)\b/u.test(t)).length).toBeGreaterThanOrEqual(3);
  });

  it('read them all when nothing else comes, and then read a document exactly as threads that rehearsed nothing', async () => {
    // Other limits, so threads of its own: the emulators of a process share theirs (D-1074).
    const rehearsed = await fileEmulator({ seed: 3, workers: { idleTimeoutMs: 28_000 } });
    const plain = await fileEmulator({ seed: 3, workers: { idleTimeoutMs: 27_000 } });
    expect(await rehearsed.service.warmIngestion(() => texts.slice(0, 12))).toBe(12);
    expect(await plain.service.warmIngestion()).toBe(0);
    const read = await ingested(rehearsed);
    expect(read.status).toBe('ready');
    expect(read).toEqual(await ingested(plain));
  });

  it('start no more once a task of another kind is given, which then runs', async () => {
    const emulator = await fileEmulator({ seed: 3, workers: { idleTimeoutMs: 26_000 } });
    const { workers } = emulator.service;
    const pages = texts.map((markdown) => ({ markdown, asPage: 'main' as const }));
    // Each lane starts its first page at once; the document given next is waited for.
    const rehearsal = workers.whileIdle(EXTRACT_WORKER, 'rehearse', pages);
    const other = workers.run(EXTRACT_WORKER, 'warm', null, { background: true });
    expect(await rehearsal).toBe(workers.backgroundThreads);
    await expect(other).resolves.toBeNull();
  });

  it('start none on a pool that was closed', async () => {
    const emulator = await fileEmulator({ seed: 3, workers: { idleTimeoutMs: 25_000 } });
    const { workers } = emulator.service;
    await emulator.close();
    expect(await workers.whileIdle(EXTRACT_WORKER, 'rehearse', [{ markdown: texts[0]!, asPage: 'main' }])).toBe(0);
    expect(await workers.threads()).toBe(0);
  });
});
