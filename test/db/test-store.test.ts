import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { setupEmulator } from '../../emulator/vitest.js';
import { fileEmulator } from '../support/emulator.js';
import { cliStore, testStoreName, TEST_STORES } from '../support/store.js';

// The switch that runs the whole suite on one store (`SVC_TEST_STORE`): every way a test
// starts an emulator without naming a store lands on the run's, so a misspelt or ignored
// switch cannot pass on SQLite unnoticed.
const name = testStoreName();
const kind = { 'sqlite-memory': 'memory', 'sqlite-file': 'file', pglite: 'pglite', postgres: 'postgres' }[name];
const ctx = setupEmulator({ seed: 1 });

describe(`the run's store: ${name}`, () => {
  it('is what createEmulator, fileEmulator and setupEmulator open when a test names none', async () => {
    const direct = await createEmulator();
    try {
      expect(direct.service.store.kind).toBe(kind);
    } finally {
      await direct.close();
    }
    expect((await fileEmulator()).service.store.kind).toBe(kind);
    expect(ctx.emulator.service.store.kind).toBe(kind);
  }, 120_000); // two more emulators: a PGlite one boots its WASM and copies a data folder each

  it('a test that names a store keeps it', async () => {
    const named = await createEmulator({ db: { kind: 'memory' } });
    expect(named.service.store.kind).toBe('memory');
    await named.close();
  });

  it('is what a CLI started by a test uses (the CLI has no PGlite form: SQLite in memory then)', () => {
    const db = cliStore();
    if (name === 'postgres') expect(db).toMatch(/^postgres:\/\//);
    else if (name === 'sqlite-file') expect(db).toMatch(/store\.db$/);
    else expect(db).toBeUndefined();
  });

  it('refuses a store it does not know, naming the four', () => {
    expect(() => testStoreName({ SVC_TEST_STORE: 'mysql' })).toThrow(`SVC_TEST_STORE=mysql: not a test store; one of ${TEST_STORES.join(', ')}`);
    expect(testStoreName({})).toBe('sqlite-memory');
  });
});
