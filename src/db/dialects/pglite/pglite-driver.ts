import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { PGlite } from '@electric-sql/pglite';
import type { AnyKysely } from '../sql-dialect.js';

/** PGlite's one connection: a query goes straight to the instance. */
class PgliteConnection implements DatabaseConnection {
  constructor(private readonly pg: PGlite) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { rows, affectedRows } = await this.pg.query<R>(query.sql, [...query.parameters], { rowMode: 'object' });
    return { rows, ...(affectedRows !== undefined && { numAffectedRows: BigInt(affectedRows) }) };
  }

  streamQuery(): AsyncIterableIterator<QueryResult<never>> {
    throw new Error('PGlite does not stream query results');
  }
}

/**
 * PGlite is one connection: it is lent to one borrower at a time (a transaction holds it
 * until it ends), as kysely's SQLite driver lends its database and as its own PGlite
 * dialect does from kysely 0.29 (decisions, D-820).
 */
class PgliteDriver implements Driver {
  readonly #connection: PgliteConnection;
  #tail: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(pg: PGlite) {
    this.#connection = new PgliteConnection(pg);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.#release = release;
    return this.#connection;
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    const access = settings.accessMode ? ` ${settings.accessMode}` : '';
    await connection.executeQuery(CompiledQuery.raw(`start transaction${isolation}${access}`));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  /** The instance is closed by its owner (`openPglite`), after kysely. */
  async destroy(): Promise<void> {}
}

/** Kysely's Postgres SQL over an in-process PGlite instance. */
export class PgliteDialect implements Dialect {
  constructor(private readonly pg: PGlite) {}

  createDriver(): Driver {
    return new PgliteDriver(this.pg);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  createIntrospector(db: AnyKysely): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
}
