import { Kysely, SqliteDialect, type Dialect, type SqliteDatabase } from 'kysely';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from './schema/index.js';
import { migrateToLatest } from './migrate.js';
import { createPgliteDialect } from './dialects/pglite.js';

export type DialectName = 'sqlite' | 'postgres';

export type DatabaseOptions =
  | { kind: 'memory' }
  | { kind: 'file'; path: string }
  | { kind: 'pglite'; dataDir?: string };

/** An open store: the kysely handle, which SQL dialect it speaks, and how to close it. */
export interface Store {
  db: Kysely<Database>;
  dialect: DialectName;
  kind: DatabaseOptions['kind'];
  close(): Promise<void>;
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every statement anew; on the hot path that costs more than running
 * it. This keeps the last prepared statements by SQL text behind kysely's small
 * `SqliteDatabase` interface (statements are reusable, and kysely runs one at a time).
 */
function withStatementCache(sqlite: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (statement) {
        cache.delete(sql);
      } else {
        statement = sqlite.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, statement);
      return statement as unknown as ReturnType<SqliteDatabase['prepare']>;
    },
    close() {
      cache.clear();
    },
  };
}

/**
 * Opens a store and applies every migration. SQLite files run in WAL mode so that a
 * killed process loses no acknowledged write.
 */
export async function openStore(options: DatabaseOptions = { kind: 'memory' }): Promise<Store> {
  let dialect: Dialect;
  let name: DialectName;
  let closeDriver: () => Promise<void>;
  if (options.kind === 'pglite') {
    const { PGlite } = await import('@electric-sql/pglite');
    const pg = new PGlite(options.dataDir);
    await pg.waitReady;
    dialect = createPgliteDialect(pg);
    name = 'postgres';
    closeDriver = () => pg.close();
  } else {
    const sqlite = new BetterSqlite3(options.kind === 'file' ? options.path : ':memory:');
    if (options.kind === 'file') {
      sqlite.pragma('journal_mode = WAL');
      sqlite.pragma('synchronous = NORMAL');
    }
    sqlite.pragma('busy_timeout = 5000');
    dialect = new SqliteDialect({ database: withStatementCache(sqlite) });
    name = 'sqlite';
    closeDriver = async () => {
      if (sqlite.open) {
        if (options.kind === 'file') sqlite.pragma('wal_checkpoint(TRUNCATE)');
        sqlite.close();
      }
    };
  }
  const db = new Kysely<Database>({ dialect });
  await migrateToLatest(db, name);
  let closed = false;
  return {
    db,
    dialect: name,
    kind: options.kind,
    async close() {
      if (closed) return;
      closed = true;
      if (name === 'postgres') await db.destroy();
      await closeDriver();
    },
  };
}
