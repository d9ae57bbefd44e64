import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { createEmulator, Emulator } from '../../emulator/emulator.js';
import type { DatabaseOptions } from '../../src/db/database.js';
import { dropDatabase, freshDatabase } from './postgres.js';

/**
 * The stores a test run can put every store-touching test on (kysely's `DIALECTS`):
 * SQLite in memory (the default), SQLite in a file, PGlite, and a PostgreSQL server.
 */
export const TEST_STORES = ['sqlite-memory', 'sqlite-file', 'pglite', 'postgres'] as const;
export type TestStoreName = (typeof TEST_STORES)[number];

/**
 * The run's store: `SVC_TEST_STORE` (only test support reads it), `sqlite-memory` when
 * unset. `npm run test:postgres` and `npm run test:pglite` set it.
 */
export function testStoreName(env: NodeJS.ProcessEnv = process.env): TestStoreName {
  const name = env.SVC_TEST_STORE?.trim() || 'sqlite-memory';
  if (!(TEST_STORES as readonly string[]).includes(name)) {
    throw new Error(`SVC_TEST_STORE=${name}: not a test store; one of ${TEST_STORES.join(', ')}`);
  }
  return name as TestStoreName;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated PGlite data folder that each `pglite` test store starts as a copy of (`postgres-setup.ts`). */
    pgliteTemplate: string | undefined;
    /** A migrated database on the run's cluster that each `postgres` test store is created from. */
    postgresTemplate: string | undefined;
  }
}

/** A store of the run's kind and how to throw it away once its emulator has closed. */
export interface TestStore {
  db: DatabaseOptions;
  discard(): void;
}

function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * A new store of the run's kind: empty, with every migration applied (a PGlite copy of
 * the run's migrated template folder, a PostgreSQL database created from the migrated
 * template database; the migrations themselves run from scratch in `test/db/`).
 * `reopenable` asks for one that a second emulator can open after the first closed:
 * a SQLite file when the run is on SQLite in memory, a PGlite folder.
 */
export function openTestStore(options: { reopenable?: boolean } = {}): TestStore {
  const name = testStoreName();
  if (name === 'postgres') {
    const cluster = inject('postgres');
    const url = freshDatabase(cluster, 'emu', inject('postgresTemplate'));
    return { db: { kind: 'postgres', url }, discard: () => dropDatabase(cluster, url) };
  }
  if (name === 'pglite') {
    const dir = tempDir('svc-emu-pglite-');
    const template = inject('pgliteTemplate');
    if (template) cpSync(template, dir, { recursive: true });
    return { db: { kind: 'pglite', dataDir: dir }, discard: () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (name === 'sqlite-file' || options.reopenable) {
    const dir = tempDir('svc-emu-');
    return { db: { kind: 'file', path: join(dir, 'store.db') }, discard: () => rmSync(dir, { recursive: true, force: true }) };
  }
  return { db: { kind: 'memory' }, discard: () => {} };
}

/**
 * A store of the run's kind for a test that closes an emulator and opens another on the
 * same data (a restart). Left for the run's end to remove: the test may reopen it at any time.
 */
export function reopenableStore(): DatabaseOptions {
  return openTestStore({ reopenable: true }).db;
}

/**
 * What a test passes as the CLI's `--db` (or `SVC_EMULATOR_DB`) on the run's store: a
 * PostgreSQL URL, a SQLite file, or `undefined` (in memory). The CLI has no PGlite form,
 * so a PGlite run starts its CLIs on SQLite as `sqlite-memory` does.
 */
export function cliStore(): string | undefined {
  const name = testStoreName();
  if (name === 'postgres') return freshDatabase(inject('postgres'), 'cli', inject('postgresTemplate'));
  return name === 'sqlite-file' ? join(tempDir('svc-emu-'), 'store.db') : undefined;
}

/** A `--db` on the run's store that a restarted CLI finds again: a SQLite file unless the run is on PostgreSQL. */
export function reopenableCliStore(): string {
  return cliStore() ?? join(tempDir('svc-emu-'), 'store.db');
}

/**
 * `createEmulator` on the run's store: an emulator whose options name no `db` gets a new
 * store of the run's kind, thrown away when it closes. A test that names a `db` keeps it
 * (a test about one store, or one that reopens a store it made).
 */
export function onTestStore(create: typeof createEmulator): typeof createEmulator {
  return async (options = {}) => {
    if (options.db !== undefined || testStoreName() === 'sqlite-memory') return create(options);
    const store = openTestStore();
    let emulator: Emulator;
    try {
      emulator = await create({ ...options, db: store.db });
    } catch (error) {
      store.discard();
      throw error;
    }
    const close = emulator.close.bind(emulator);
    emulator.close = async () => {
      await close();
      store.discard();
    };
    return emulator;
  };
}
