import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { StoreOpenError } from '../../src/db/database.js';
import { bySqlite, fileDigest, tempDbPath } from '../support/backends.js';
import { client } from '../support/client.js';
import { quiet } from '../support/emulator.js';

const NOTHING_DRAWN = { time: -1, random: '0', draws: 0 };

/** Makes `n` agents through /v1: every answer must be 201. */
async function makeAgents(api: ReturnType<typeof client>, n: number): Promise<string[]> {
  const made: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await api.post('/v1/agents', { name: `Agent ${i}`, identity: { businessName: 'B' } });
    expect(res.status, res.text).toBe(201);
    made.push(res.body.id);
  }
  return made;
}

describe('an id stream is never behind the ids its rows hold (D-1198)', () => {
  it('a document whose ids say "nothing drawn" imports, and the next ids come after its rows', async () => {
    const source = await createEmulator({ seed: 5, log: quiet });
    const ws = await source.createWorkspace();
    const before = await makeAgents(client(source, ws.apiKey.secret), 3);
    const doc = { ...(await source.exportState({ plainHashes: true })), ids: NOTHING_DRAWN };
    await source.close();

    const target = await createEmulator({ seed: 5, log: quiet });
    await target.importState(doc, { plainHashes: true });
    const after = await makeAgents(client(target, ws.apiKey.secret), 3);
    expect(after.every((id) => id > before.at(-1)!)).toBe(true);
    expect(new Set([...before, ...after]).size).toBe(6);
    await target.close();
  });

  it('a --db file whose meta.ids was set back by hand starts, and its next ids come after its rows', async () => {
    const file = tempDbPath();
    const first = await createEmulator({ db: file, seed: 6, fixtures: 'none', log: quiet });
    const ws = await first.createWorkspace();
    const before = await makeAgents(client(first, ws.apiKey.secret), 2);
    await first.close();
    bySqlite(file, (db) => db.prepare("UPDATE meta SET value = ? WHERE key = 'ids'").run(JSON.stringify(NOTHING_DRAWN)));
    const again = await createEmulator({ db: file, seed: 6, fixtures: 'none', log: quiet });
    const after = await makeAgents(client(again, ws.apiKey.secret), 3);
    expect(after.every((id) => id > before.at(-1)!)).toBe(true);
    await again.close();
  });
});

describe('a job is due when it is queued, a re-crawl excepted (D-1198)', () => {
  it('a lexicon job queued for the year 8999 is refused, naming the row and run_at; the state is unchanged', async () => {
    const emulator = await createEmulator({ seed: 7, log: quiet });
    const ws = await emulator.createWorkspace();
    const api = client(emulator, ws.apiKey.secret);
    expect((await api.post('/v1/knowledge/text', { title: 'Notes', text: 'Tandem bicycles for two riders.' })).status).toBe(202);
    await emulator.drain();
    const doc = await emulator.exportState({ plainHashes: true });
    const now = new Date(emulator.clock.now()).toISOString();
    const job = { id: 'job_01kdvdna00zzzzzzzzzzzzzzzz', workspace_id: ws.workspaceId, kind: 'knowledge.lexicon', payload: '{}', status: 'queued' };
    const row = { ...job, attempts: 0, last_error: null, created_at: now, updated_at: now };
    const late = structuredClone(doc);
    (late.tables.jobs as Record<string, unknown>[]).push({ ...row, run_at: '8999-01-01T00:00:00.000Z' });
    // The same job due when queued is one the service writes: taken.
    const due = structuredClone(doc);
    (due.tables.jobs as Record<string, unknown>[]).push({ ...row, run_at: now });
    const other = await createEmulator({ seed: 7, log: quiet });
    await other.importState(due, { plainHashes: true });
    await other.close();
    const refused = await emulator.importState(late, { plainHashes: true }).then(
      () => undefined,
      (error: { status: number; errors: { field: string; reason: string }[] }) => error,
    );
    expect(refused?.status).toBe(400);
    expect(refused?.errors[0]).toMatchObject({
      field: expect.stringMatching(/^tables\.jobs\.\d+\.run_at$/),
      reason: expect.stringContaining('only a knowledge.recrawl job'),
    });
    expect(await emulator.exportState({ plainHashes: true })).toEqual(doc);
    await emulator.close();
  });
});

describe('meta values read at start are read before anything is written (D-1198)', () => {
  it.each(['initialized', 'baseline', 'clean'])('meta.%s that is not JSON stops the start naming the file and the key; the file is as it was', async (key) => {
    const file = tempDbPath();
    const first = await createEmulator({ db: file, seed: 8, fixtures: 'demo', log: quiet });
    await first.close();
    bySqlite(file, (db) => db.prepare('UPDATE meta SET value = ? WHERE key = ?').run('{', key));
    const sum = fileDigest(file);
    const start = createEmulator({ db: file, seed: 8, fixtures: 'demo', log: quiet });
    await expect(start).rejects.toBeInstanceOf(StoreOpenError);
    await expect(start).rejects.toThrow(`cannot use ${file}: its meta.${key} is not JSON`);
    expect(fileDigest(file)).toBe(sum);
  });
});
