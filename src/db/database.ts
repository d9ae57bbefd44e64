import { Kysely } from 'kysely';
import type { Database } from './schema/index.js';
import { migrateToLatest } from './migrate.js';
import { openPglite } from './dialects/pglite/pglite-backend.js';
import { openSqlite } from './dialects/sqlite/sqlite-backend.js';
import type { DialectName, SqlDialect } from './dialects/sql-dialect.js';

export type { DialectName } from './dialects/sql-dialect.js';

export type DatabaseOptions =
  | { kind: 'memory' }
  | { kind: 'file'; path: string }
  | { kind: 'pglite'; dataDir?: string };

/** An open store: the kysely handle, which SQL dialect it speaks, and how to close it. */
export interface Store {
  db: Kysely<Database>;
  /** The dialect's name (`sql.name`). */
  dialect: DialectName;
  /** What differs in SQL between the backends (column types, full-text search). */
  sql: SqlDialect;
  kind: DatabaseOptions['kind'];
  close(): Promise<void>;
}

/**
 * Opens a store and applies every migration. SQLite files run in WAL mode so that a
 * killed process loses no acknowledged write.
 */
export async function openStore(options: DatabaseOptions = { kind: 'memory' }): Promise<Store> {
  const backend =
    options.kind === 'pglite' ? await openPglite(options.dataDir) : openSqlite(options.kind === 'file' ? options.path : undefined);
  const db = new Kysely<Database>({ dialect: backend.kysely });
  await migrateToLatest(db, backend.sql);
  let closed = false;
  return {
    db,
    dialect: backend.sql.name,
    sql: backend.sql,
    kind: options.kind,
    async close() {
      if (closed) return;
      closed = true;
      await backend.close(db);
    },
  };
}
