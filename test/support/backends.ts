import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { DatabaseOptions } from '../../src/db/database.js';
import { freshDatabase } from './postgres.js';

/**
 * The four stores every shared suite runs on (kysely's `for (const dialect of DIALECTS)`):
 * SQLite in memory and in a file, PGlite, and a PostgreSQL server (a database of its
 * own on the run's test cluster).
 */
export const BACKENDS: { name: string; options: () => DatabaseOptions }[] = [
  { name: 'sqlite-memory', options: () => ({ kind: 'memory' }) },
  { name: 'sqlite-file', options: () => ({ kind: 'file', path: join(mkdtempSync(join(tmpdir(), 'svc-emu-')), 'store.db') }) },
  { name: 'pglite', options: () => ({ kind: 'pglite' }) },
  { name: 'postgres', options: () => ({ kind: 'postgres', url: freshDatabase(inject('postgres'), 'store') }) },
];

/** A fresh temporary file path for a SQLite database. */
export function tempDbPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'svc-emu-')), 'store.db');
}
