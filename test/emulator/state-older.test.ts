// State files older versions of svc-emulator wrote (test/fixtures/state/, made by those
// commits' own code) pass the gate and import: what they lack is filled as a current
// export has it, what they carry that is derived is dropped and built again (D-724).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { client, send } from '../support/client.js';
import { quiet } from '../support/emulator.js';

const DEMO_KEY = 'svc_test_DemoFullAccessKey000000000000001_0k1rIW';
const older = (name: string) => JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'state', name), 'utf8'));

describe.each([
  ['state-9233e65.json', 'before issue 14: chunks without terms columns'],
  ['state-bbc8b81.json', 'issue 14 before exports left derived rows out: chunk terms and knowledge_terms rows'],
])('%s (%s)', (name) => {
  it('imports as the older version wrote it, and answers as that state', async () => {
    const doc = older(name);
    const emulator = await createEmulator({ state: doc, log: quiet });
    try {
      const api = client(emulator, DEMO_KEY);
      expect((await api.get('/v1/me')).status).toBe(200);
      const agents = (await api.get('/v1/agents')).body.data as { id: string; name: string }[];
      expect(agents.map((a) => a.name)).toContain('Older');
      // The stored answer of the older version is replayed as it was.
      const replay = await api.post('/v1/agents', { name: 'Older', identity: { businessName: 'Old Café' } }, { 'idempotency-key': 'older-1' });
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.id).toBe(agents.find((a) => a.name === 'Older')!.id);
      // Retrieval reads the chunks again (their terms are analysed anew).
      const barista = agents.find((a) => a.name !== 'Older' && doc.tables.knowledge_chunks.some((c: { agent_id: string }) => c.agent_id === a.id))!;
      const found = await api.post(`/v1/agents/${barista.id}/query`, { query: 'opening hours' });
      expect(found.status).toBe(200);
      expect(found.body.passages.length).toBeGreaterThan(0);
      const asset = (await api.get('/v1/assets')).body.data[0];
      const file = await send(emulator, 'GET', new URL(asset.url).pathname + new URL(asset.url).search);
      expect(file.status).toBe(200);
      expect(Number(file.headers.get('content-length'))).toBe(asset.byteSize);
      expect((await send(emulator, 'GET', 'http://cafe-aurora.localhost/')).status).toBe(200);
      // What is exported now is a current document: no derived rows, chunks without terms.
      const now = await emulator.exportState({ plainHashes: true });
      expect(Object.keys(now.tables)).not.toContain('knowledge_terms');
      for (const chunk of now.tables.knowledge_chunks!) expect(chunk).toMatchObject({ terms: null, analyzer_id: null });
    } finally {
      await emulator.close();
    }
  });
});
