import { SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import BetterSqlite3 from 'better-sqlite3';
import type { Backend } from '../sql-dialect.js';
import { holdStore } from '../store-lock.js';
import { SQLITE_DIALECT } from './sqlite-dialect.js';

const STATEMENT_CACHE_SIZE = 500;

/**
 * A reading statement that hands kysely the row objects better-sqlite3 would, built here
 * from its raw arrays (D-1141): better-sqlite3 sets each column through V8's API, about
 * 0.4 µs a value, so a page of 100 sources (28 columns) took 1.4 ms. The same keys in
 * the same order, a later column of a name over an earlier one, as better-sqlite3 does
 * (`rowBuilder`).
 */
function objectRows(statement: BetterSqlite3.Statement): SqliteStatement {
  if (!statement.reader) return statement as unknown as SqliteStatement;
  const build = rowBuilder(statement.columns().map((column) => column.name));
  statement.raw(true);
  return {
    reader: true,
    all(parameters) {
      const rows = statement.all(parameters) as unknown[][];
      const out: Record<string, unknown>[] = new Array(rows.length);
      for (let i = 0; i < rows.length; i++) out[i] = build(rows[i]!);
      return out;
    },
    run: (parameters) => statement.run(parameters),
    *iterate(parameters) {
      for (const values of statement.iterate(parameters) as IterableIterator<unknown[]>) yield build(values);
    },
  };
}

/** One loop over the names: what every statement's rows would share without `rowBuilder`'s literal. */
function loopBuilder(names: readonly string[]): (values: unknown[]) => Record<string, unknown> {
  return (values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      // `row.__proto__ = blob` would make a Buffer the row's prototype (D-1227).
      if (name === '__proto__') Object.defineProperty(row, name, { value: values[i], writable: true, enumerable: true, configurable: true });
      else row[name] = values[i];
    }
    return row;
  };
}

/**
 * The row object of a statement's columns, as an object literal compiled once per
 * statement: V8 makes each row from the literal's template in one step, where a loop of
 * keyed stores, shared by every statement's column names, takes V8's generic path for
 * each value (D-1144). The names are our own SQL's columns, written as JSON strings; a
 * column named `__proto__` is a computed key, which a literal makes an own property where
 * `"__proto__": v` would set the prototype (D-1227). A process that refuses code made
 * from strings takes the loop.
 */
function rowBuilder(names: readonly string[]): (values: unknown[]) => Record<string, unknown> {
  const fields = names.map((name, i) => `${name === '__proto__' ? '["__proto__"]' : JSON.stringify(name)}: v[${i}]`).join(', ');
  try {
    return new Function('v', `return { ${fields} };`) as (values: unknown[]) => Record<string, unknown>;
  } catch {
    return loopBuilder(names);
  }
}

/**
 * Kysely prepares every statement anew; on the hot path that costs more than running
 * it. This keeps the last prepared statements by SQL text behind kysely's small
 * `SqliteDatabase` interface (statements are reusable, and kysely runs one at a time).
 */
function withStatementCache(sqlite: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (statement) {
        cache.delete(sql);
      } else {
        statement = objectRows(sqlite.prepare(sql));
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, statement);
      return statement;
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
