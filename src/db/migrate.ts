import { Migrator, type Migration } from 'kysely';
import type { AnyKysely, SqlDialect } from './dialects/sql-dialect.js';
import { MIGRATIONS } from './migrations/index.js';

function migrator(db: AnyKysely, dialect: SqlDialect): Migrator {
  const migrations: Record<string, Migration> = {};
  for (const [name, m] of Object.entries(MIGRATIONS)) {
    migrations[name] = { up: (d) => m.up(d, dialect) };
  }
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
}

/** Applies every migration not yet applied, in name order. */
export async function migrateToLatest(db: AnyKysely, dialect: SqlDialect): Promise<void> {
  const { error } = await migrator(db, dialect).migrateToLatest();
  if (error) throw error;
}

/** Applies the migrations up to `last` (by name) and no further. */
export async function migrateTo(db: AnyKysely, dialect: SqlDialect, last: string): Promise<void> {
  const { error } = await migrator(db, dialect).migrateTo(last);
  if (error) throw error;
}

/** Every migration's name, in the order they apply. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS).sort();
