import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { tempDbPath } from '../support/backends.js';
import { quiet } from '../support/emulator.js';

// Each emulator keeps caches of what it wrote (retrieval's chunks and versions, the term
// dictionary): two on one SQLite file would each answer from their own (D-1130).
describe('a store kept on disk is one emulator’s while it is open', () => {
  it('a second emulator on the same file is refused, in the same process; once the first closes, the file opens with its state', async () => {
    const db = tempDbPath();
    const first = await createEmulator({ db, fixtures: 'none', log: quiet });
    const ws = await first.createWorkspace({ name: 'Kept' });
    const refused = await createEmulator({ db, fixtures: 'none', log: quiet }).then(
      async (emulator) => {
        await emulator.close();
        return undefined;
      },
      (error: unknown) => error as Error,
    );
    expect(refused?.message).toBe(
      `cannot use ${db}: another svc-emulator has it open (in this process or another). Two emulators on one store would each answer from caches of their own writes; stop the other, use another file, or share a postgres:// database between them`,
    );
    // The refusal left the first one as it was.
    expect((await first.fetch(new Request('http://x/v1/me', { headers: { authorization: `Bearer ${ws.apiKey.secret}` } }))).status).toBe(200);
    await first.close();
    // Nothing is left beside the file once it is closed.
    expect(readdirSync(dirname(db))).toEqual([basename(db)]);
    const again = await createEmulator({ db, fixtures: 'none', log: quiet });
    try {
      expect((await again.fetch(new Request('http://x/v1/me', { headers: { authorization: `Bearer ${ws.apiKey.secret}` } }))).status).toBe(200);
    } finally {
      await again.close();
    }
  });

  it('a PGlite data directory too: the second is refused, the first keeps its state, the directory opens again once it is closed', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'svc-emu-pglite-')), 'data');
    const first = await createEmulator({ db: { kind: 'pglite', dataDir }, fixtures: 'none', log: quiet });
    const ws = await first.createWorkspace({ name: 'Kept' });
    const refused = await createEmulator({ db: { kind: 'pglite', dataDir }, fixtures: 'none', log: quiet }).then(
      async (emulator) => {
        await emulator.close();
        return undefined;
      },
      (error: unknown) => error as Error,
    );
    expect(refused?.message).toMatch(
      new RegExp(`^cannot use ${dataDir}: another svc-emulator has it open .* use another data directory, or share a postgres:// database between them$`),
    );
    await first.close();
    expect(readdirSync(dirname(dataDir))).toEqual([basename(dataDir)]);
    const again = await createEmulator({ db: { kind: 'pglite', dataDir }, fixtures: 'none', log: quiet });
    try {
      expect((await again.fetch(new Request('http://x/v1/me', { headers: { authorization: `Bearer ${ws.apiKey.secret}` } }))).status).toBe(200);
    } finally {
      await again.close();
    }
  }, 60_000);
});
