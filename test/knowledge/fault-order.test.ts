import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { openStore } from '../../src/db/database.js';
import type { IngestFailureCode } from '../../src/platform/ingest-failures.js';
import { EmulatedClock } from '../../src/platform/clock.js';
import { createIdGenerator } from '../../src/platform/ids.js';
import { resolveSettings } from '../../src/platform/settings.js';
import { SCOPES } from '../../src/platform/scopes.js';
import { createService } from '../../src/service.js';
import { client } from '../support/client.js';
import { openTestStore } from '../support/store.js';

describe('queued ingestion faults go in the order the ingestions were claimed (D-1119)', () => {
  it('a take that answers late still gets the first fault: the second ingestion waits for it', async () => {
    const queued: IngestFailureCode[] = ['unsupported_document'];
    let calls = 0;
    // As a shared store's take can: the first call reaches the queue after the second.
    const take = async () => {
      calls += 1;
      if (calls === 1) await new Promise((resolve) => setTimeout(resolve, 60));
      return queued.shift();
    };
    const testStore = openTestStore();
    const store = await openStore(testStore.db);
    const clock = new EmulatedClock();
    const service = createService({
      db: store,
      clock,
      ids: createIdGenerator({ clock, seed: 4 }),
      settings: resolveSettings({ secret: 's', log: () => {} }),
      ports: { ingestFaults: take },
    });
    try {
      await service.start();
      const ws = await service.workspaces.create({});
      const key = await service.auth.createKey(ws.id, { name: 'k', scopes: [...SCOPES], env: 'test' });
      const { app } = createApp(service);
      const api = client({ request: (path: string, init?: RequestInit) => app.request(path, init) } as never, key.secret);
      // Both accepted before the queue looks: one batch, two lanes, taking faults at once.
      const first = (await api.post('/v1/knowledge/text', { title: 'First', text: 'The first document.' })).body.id as string;
      const second = (await api.post('/v1/knowledge/text', { title: 'Second', text: 'The second document.' })).body.id as string;
      await service.jobs.drain();
      const status = async (id: string) => (await api.get(`/v1/knowledge/sources/${id}`)).body as { status: string; error?: string };
      expect(await status(first)).toMatchObject({ status: 'failed', error: 'unsupported_document' });
      expect((await status(second)).status).toBe('ready');
    } finally {
      await service.stop();
      await store.close();
      await testStore.discard?.();
    }
  });
});
