import type { DialectMigration } from './migration.js';

/** What processes sharing one store agree on (schema/shared.ts; decisions, D-201). */
export const sharedStore: DialectMigration = {
  async up(db, dialect) {
    await db.schema
      .createTable('instances')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('lease_until', 'bigint', (c) => c.notNull())
      .addColumn('pausing', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();

    await db.schema
      .createTable('job_leases')
      .addColumn('job_id', 'text', (c) => c.primaryKey())
      .addColumn('instance_id', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('window_counters')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('window_start', 'text', (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('window_counters_pk', ['name', 'window_start'])
      .execute();
    await db.schema.createIndex('window_counters_expiry').on('window_counters').column('expires_at').execute();

    await db.schema
      .createTable('coherence')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('version', 'bigint', (c) => c.notNull())
      .execute();
    await db.insertInto('coherence').values({ id: 1, version: 0 }).execute();

    await db.schema
      .createTable('faults')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('method', 'text')
      .addColumn('path', 'text')
      .addColumn('status', 'integer')
      .addColumn('code', 'text', (c) => c.notNull())
      .addColumn('remaining', 'integer')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('journal')
      .addColumn('seq', dialect.columnTypes.serial, (c) => c.primaryKey())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('code', 'text')
      .addColumn('key_prefix', 'text')
      .addColumn('workspace_id', 'text')
      .addColumn('request_id', 'text', (c) => c.notNull())
      .execute();
  },
};
