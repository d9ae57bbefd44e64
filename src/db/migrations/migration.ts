import type { AnyKysely, SqlDialect } from '../dialects/sql-dialect.js';

/** A migration; `dialect` says what differs between backends (column types, full-text indexes). */
export interface DialectMigration {
  up(db: AnyKysely, dialect: SqlDialect): Promise<void>;
}
