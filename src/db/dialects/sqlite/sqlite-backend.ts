import { SqliteDialect, type SqliteDatabase } from 'kysely';
import BetterSqlite3 from 'better-sqlite3';
import type { Backend } from '../sql-dialect.js';
import { holdStore } from '../store-lock.js';
import { SQLITE_DIALECT } from './sqlite-dialect.js';

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
 * SQLite through better-sqlite3: in memory without `path` (a copy of `image` when given),
 * else that file in WAL mode, so that a killed process loses no acknowledged write, held
 * by this store alone while it is open.
 */
export function openSqlite(path?: string, image?: Buffer): Backend {
  const sqlite = new BetterSqlite3(path ?? image ?? ':memory:');
  let held: { release(): void } | undefined;
  try {
    if (path !== undefined) {
      sqlite.pragma('journal_mode = WAL');
      sqlite.pragma('synchronous = NORMAL');
      held = holdStore(path, 'file');
    }
    sqlite.pragma('busy_timeout = 5000');
  } catch (error) {
    sqlite.close();
    throw error;
  }
  return {
    kysely: new SqliteDialect({ database: withStatementCache(sqlite) }),
    sql: SQLITE_DIALECT,
    async close() {
      if (sqlite.open) {
        if (path !== undefined) sqlite.pragma('wal_checkpoint(TRUNCATE)');
        sqlite.close();
      }
      held?.release();
    },
  };
}
