import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseOptions } from '../../src/db/database.js';

/** The three stores every shared suite runs on (kysely's `for (const dialect of DIALECTS)`). */
export const BACKENDS: { name: string; options: () => DatabaseOptions }[] = [
  { name: 'sqlite-memory', options: () => ({ kind: 'memory' }) },
  { name: 'sqlite-file', options: () => ({ kind: 'file', path: join(mkdtempSync(join(tmpdir(), 'svc-emu-')), 'store.db') }) },
  { name: 'pglite', options: () => ({ kind: 'pglite' }) },
];

/** A fresh temporary file path for a SQLite database. */
export function tempDbPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'svc-emu-')), 'store.db');
}
