import { describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import { quiet, workspace } from '../support/emulator.js';
import { html, settled, upload } from './support.js';

// Alone in its file: the threads a process has are what this checks.
const page = html(
  'Backups',
  `<h1>Backups</h1>${Array.from({ length: 30 }, (_, i) => `<h2>Job ${i}</h2><p>The job ${i} copies /srv/data to the disk mounted at /mnt/backup${i} every night with rsync.</p>`).join('')}`,
);

/** The upload, as a client reads it back once ready. */
async function ingested(emulator: Emulator) {
  const { api } = await workspace(emulator);
  const res = await api.post('/v1/knowledge/uploads', upload({ name: 'backups.html', type: 'text/html', content: page }));
  expect(res.status).toBe(202);
  const { title, lang, status, chunkCount, tokenCount, summary } = await settled(emulator, api, res.body.id);
  return { title, lang, status, chunkCount, tokenCount, summary };
}

describe('the emulators of a process share their worker threads (D-1074)', () => {
  it("a second emulator reads its first document on the first one's threads, which end with the last emulator", async () => {
    const first = await createEmulator({ log: quiet, seed: 5 });
    const second = await createEmulator({ log: quiet, seed: 5 });
    const other = await createEmulator({ log: quiet, seed: 5, workers: { taskTimeoutMs: 29_000 } });
    const read = await ingested(first);
    const started = await first.service.workers.threads();
    expect(started).toBeGreaterThan(0);
    // The same options: the same threads, already running before its first task.
    expect(await second.service.workers.threads()).toBe(started);
    // Other limits: threads of its own, none until it has a task.
    expect(await other.service.workers.threads()).toBe(0);
    await first.close();
    // Closing one emulator leaves the threads to the others.
    expect(await second.service.workers.threads()).toBe(started);
    expect(await ingested(second)).toEqual(read);
    expect(await ingested(other)).toEqual(read);
    await second.close();
    expect(await second.service.workers.threads()).toBe(0);
    await other.close();
    expect(await other.service.workers.threads()).toBe(0);
  });
});
