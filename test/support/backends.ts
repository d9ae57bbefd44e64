import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { inject } from 'vitest';
import type { DatabaseOptions } from '../../src/db/database.js';
import { freshDatabase } from './postgres.js';
import { testStoreName, type TestStoreName } from './store.js';

const ALL_BACKENDS: { name: TestStoreName; options: () => DatabaseOptions }[] = [
  { name: 'sqlite-memory', options: () => ({ kind: 'memory' }) },
  { name: 'sqlite-file', options: () => ({ kind: 'file', path: join(mkdtempSync(join(tmpdir(), 'svc-emu-')), 'store.db') }) },
  { name: 'pglite', options: () => ({ kind: 'pglite' }) },
  { name: 'postgres', options: () => ({ kind: 'postgres', url: freshDatabase(inject('postgres'), 'store') }) },
];

/**
 * The stores `test/db/store.test.ts` runs its cases on (kysely's `for (const dialect of
 * DIALECTS)`): all four (SQLite in memory and in a file, PGlite, and a PostgreSQL
 * server, each case on a store it migrates from nothing) in the default run; the run's
 * store alone in a run on another (`SVC_TEST_STORE`), which runs the whole suite there.
 */
export const BACKENDS = testStoreName() === 'sqlite-memory' ? ALL_BACKENDS : ALL_BACKENDS.filter((b) => b.name === testStoreName());

/** A fresh temporary file path for a SQLite database. */
export function tempDbPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'svc-emu-')), 'store.db');
}

/** Runs SQL on a closed store file, as sqlite3 would (a hand edit). */
export function bySqlite(path: string, run: (db: BetterSqlite3.Database) => void): void {
  const db = new BetterSqlite3(path);
  try {
    run(db);
  } finally {
    db.close();
  }
}

/** The SHA-256 of a file's bytes: whether a refused start left it as it was. */
export function fileDigest(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}
