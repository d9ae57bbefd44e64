import { Kysely } from 'kysely';
import type { Database } from './schema/index.js';
import { MIGRATION_NAMES, migrateTo, migrateToLatest } from './migrate.js';
import { openPglite } from './dialects/pglite/pglite-backend.js';
import { openPostgres } from './dialects/postgres/postgres-backend.js';
import { openSqlite } from './dialects/sqlite/sqlite-backend.js';
import type { AnyKysely, Backend, DialectName, SqlDialect } from './dialects/sql-dialect.js';
import { readSqliteSchema, schemaDifference, type SqliteSchema } from './dialects/sqlite/sqlite-schema.js';
import { StoreOpenError } from './dialects/store-open-error.js';

export type { DialectName } from './dialects/sql-dialect.js';
export { StoreOpenError } from './dialects/store-open-error.js';
export { describePostgresUrl, isPostgresUrl } from './dialects/postgres/postgres-url.js';

export type DatabaseOptions =
  /** In memory; `image`: starting as a copy of a SQLite file's bytes (`serialize()`), `imageOf` that file (for messages). */
  | { kind: 'memory'; image?: Buffer; imageOf?: string }
  | { kind: 'file'; path: string }
  | { kind: 'pglite'; dataDir?: string }
  /** A PostgreSQL server, which several emulator processes may share (decisions, D-200). */
  | { kind: 'postgres'; url: string; poolSize?: number };

/** An open store: the kysely handle, which SQL dialect it speaks, and how to close it. */
export interface Store {
  db: Kysely<Database>;
  /** The dialect's name (`sql.name`). */
  dialect: DialectName;
  /** What differs in SQL between the backends (column types, full-text search). */
  sql: SqlDialect;
  kind: DatabaseOptions['kind'];
  /**
   * Whether other processes may use this database at the same time. The composition
   * root builds the shared implementations of its ports when they may (D-201).
   */
  shared: boolean;
  /** Where the data lives, for messages: a file, `memory`, or `host:port/dbname`. */
  where: string;
  /** Runs `fn` while no other process runs an `exclusive` of the same name. */
  exclusive<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** Whether `error` says the database cannot be reached right now (answer 503, not 500). */
  unavailable(error: unknown): boolean;
  /**
   * Whether `error` says the database rolled the transaction back to let another writer
   * through (a deadlock): nothing was written, and running it again can succeed (D-1129).
   */
  conflicted(error: unknown): boolean;
  close(): Promise<void>;
}

async function openBackend(options: DatabaseOptions, log?: (message: string, error?: unknown) => void): Promise<Backend> {
  switch (options.kind) {
    case 'pglite':
      return openPglite(options.dataDir);
    case 'postgres':
      return openPostgres({ url: options.url, poolSize: options.poolSize, log });
    case 'file':
      return openSqlite(options.path);
    default:
      return openSqlite(undefined, options.image);
  }
}

/**
 * Opens a store and applies every migration. SQLite files run in WAL mode so that a
 * killed process loses no acknowledged write. On a PostgreSQL server the migrations
 * run under an advisory lock, so that processes starting together apply them once.
 */
export async function openStore(options: DatabaseOptions = { kind: 'memory' }, log?: (message: string, error?: unknown) => void): Promise<Store> {
  const backend = await openBackend(options, log);
  const db = new Kysely<Database>({ dialect: backend.kysely });
  const exclusive = <T>(name: string, fn: (locked: AnyKysely) => Promise<T>): Promise<T> => (backend.exclusive ? backend.exclusive(db, name, fn) : fn(db));
  try {
    // A SQLite file (or a copy of one) was perhaps written by someone else: its schema is
    // compared before any migration or write runs on it (D-1151).
    if (options.kind === 'file' || (options.kind === 'memory' && options.image)) {
      await checkSqliteSchema(db, options.kind === 'file' ? options.path : (options.imageOf ?? 'the store file'));
    }
    await exclusive('migrate', (locked) => migrateToLatest(locked, backend.sql));
  } catch (error) {
    await backend.close(db).catch(() => {});
    throw error;
  }
  let closed = false;
  return {
    db,
    dialect: backend.sql.name,
    sql: backend.sql,
    kind: options.kind,
    shared: backend.shared ?? false,
    where: backend.where ?? (options.kind === 'file' ? options.path : options.kind === 'pglite' ? (options.dataDir ?? 'memory') : 'memory'),
    exclusive: (name, fn) => exclusive(name, () => fn()),
    unavailable: (error) => backend.unavailable?.(error) ?? false,
    conflicted: (error) => backend.conflicted?.(error) ?? false,
    async close() {
      if (closed) return;
      closed = true;
      await backend.close(db);
    },
  };
}

/** The schema the migrations `applied` make on a new SQLite database, built once per process and list. */
const expectedSchemas = new Map<string, Promise<SqliteSchema>>();

function expectedSchema(applied: readonly string[]): Promise<SqliteSchema> {
  const key = applied.join('\n');
  let schema = expectedSchemas.get(key);
  if (!schema) {
    schema = (async () => {
      const backend = openSqlite();
      const fresh = new Kysely<Database>({ dialect: backend.kysely });
      try {
        await migrateTo(fresh, backend.sql, applied.at(-1)!);
        return await readSqliteSchema(fresh);
      } finally {
        await backend.close(fresh);
      }
    })();
    expectedSchemas.set(key, schema);
  }
  return schema;
}

/**
 * Refuses a SQLite store whose schema is not the one svc-emulator's migrations make at
 * the migration it records (D-1151): a trigger or a view someone added, a unique index,
 * a table or column more or less, migrations of a newer version. A new, empty file passes.
 */
async function checkSqliteSchema(db: AnyKysely, where: string): Promise<void> {
  const found = await readSqliteSchema(db);
  if (found.tables.size === 0 && found.objects.size === 0) return;
  const refuse = (why: string, foreign = true) =>
    new StoreOpenError(`cannot use ${where}: ${why}${foreign ? ' (svc-emulator opens a store file only as it wrote it)' : ''}; nothing was changed`);
  if (found.migrations.length === 0) throw refuse('it is a SQLite database, but not a store of svc-emulator (it records no migration)');
  const unknown = found.migrations.find((name) => !MIGRATION_NAMES.includes(name));
  if (unknown !== undefined) throw refuse(`it was written by a newer svc-emulator (migration ${unknown}); upgrade svc-emulator to open it`, false);
  if (found.migrations.some((name, i) => name !== MIGRATION_NAMES[i])) throw refuse('its migrations are not the ones svc-emulator applies, in order');
  const difference = schemaDifference(found, await expectedSchema(found.migrations));
  if (difference) throw refuse(difference);
}
