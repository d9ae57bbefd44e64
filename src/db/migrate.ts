import { Migrator, type Kysely, type Migration } from 'kysely';
import type { DialectName } from './database.js';

/** Column types that differ between SQLite and Postgres. */
export interface ColumnTypes {
  blob: 'blob' | 'bytea';
  real: 'real' | 'double precision';
}

export function columnTypes(dialect: DialectName): ColumnTypes {
  return dialect === 'sqlite' ? { blob: 'blob', real: 'real' } : { blob: 'bytea', real: 'double precision' };
}

/** A migration that may differ per dialect (full-text indexes, blob columns). */
export interface DialectMigration {
  up(db: Kysely<any>, dialect: DialectName): Promise<void>;
}

/** Applies every migration not yet applied, in name order. */
export async function migrateToLatest(db: Kysely<any>, dialect: DialectName): Promise<void> {
  // Imported here, not at the top: migrations import `columnTypes` from this module.
  const { MIGRATIONS } = await import('./migrations/index.js');
  const migrations: Record<string, Migration> = {};
  for (const [name, m] of Object.entries(MIGRATIONS)) {
    migrations[name] = { up: (d) => m.up(d, dialect) };
  }
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}
