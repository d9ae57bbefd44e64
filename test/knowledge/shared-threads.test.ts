import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../emulator/package-info.js';
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
  it("a second emulator reads its first document on the first one's threads, which outlive the last emulator", async () => {
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
    await other.close();
    // Left idle (D-1229): the next emulator, as a test's after the one before it closed,
    // reads its first document on them instead of starting threads of its own.
    const next = await createEmulator({ log: quiet, seed: 5 });
    expect(await next.service.workers.threads()).toBe(started);
    expect(await ingested(next)).toEqual(read);
    expect(await next.service.workers.threads()).toBe(started);
    await next.close();
  });
});

describe('threads left idle by the last emulator (D-1229)', () => {
  it('keep no process alive: one that ingested and closed its emulator exits by itself', () => {
    // The built package, as a user's test process has it; the threads' idle time (30 s)
    // is far past the wait: a process they kept alive would be ended by it.
    const script = `
      import { createEmulator } from ${JSON.stringify(pathToFileURL(join(packageRoot(), 'dist', 'lib-main.js')).href)};
      const emulator = await createEmulator({ seed: 1 });
      const { apiKey } = await emulator.createWorkspace();
      const headers = { authorization: 'Bearer ' + apiKey.secret, 'content-type': 'application/json' };
      const added = await emulator.fetch('/v1/knowledge/text', { method: 'POST', headers, body: JSON.stringify({ title: 'Backups', text: 'Backups run every night with rsync.' }) });
      await emulator.fetch('/_emulator/queue/drain', { method: 'POST' });
      const source = await (await emulator.fetch('/v1/knowledge/sources/' + (await added.json()).id, { headers })).json();
      const workers = emulator.service.workers;
      await emulator.close();
      console.log(JSON.stringify({ status: source.status, threads: await workers.threads() }));
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    expect(run.signal, run.stderr).toBeNull();
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { status: string; threads: number };
    expect(out.status).toBe('ready');
    expect(out.threads).toBeGreaterThan(0);
  });
});
