import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialects/sql-dialect.js';

/** A migration; `dialect` says what differs between backends (column types, full-text indexes). */
export interface DialectMigration {
  up(db: Kysely<any>, dialect: SqlDialect): Promise<void>;
}
