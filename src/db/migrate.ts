import { Migrator, type Migration } from 'kysely';
import type { AnyKysely, SqlDialect } from './dialects/sql-dialect.js';
import { MIGRATIONS } from './migrations/index.js';

/** Applies every migration not yet applied, in name order. */
export async function migrateToLatest(db: AnyKysely, dialect: SqlDialect): Promise<void> {
  const migrations: Record<string, Migration> = {};
  for (const [name, m] of Object.entries(MIGRATIONS)) {
    migrations[name] = { up: (d) => m.up(d, dialect) };
  }
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}
