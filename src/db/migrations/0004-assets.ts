import type { DialectMigration } from './migration.js';

/** Assets, brand files and brands. Bytes live in blob (`bytea`) columns. */
export const assets: DialectMigration = {
  async up(db, dialect) {
    const { blob, real } = dialect.columnTypes;

    await db.schema
      .createTable('assets')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('key', 'text')
      .addColumn('page_id', 'text')
      .addColumn('alt', 'text')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('byte_size', 'integer', (c) => c.notNull())
      .addColumn('width', 'integer')
      .addColumn('height', 'integer')
      .addColumn('duration_seconds', real)
      .addColumn('sha256', 'text', (c) => c.notNull())
      .addColumn('bytes', blob, (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('assets_workspace').on('assets').columns(['workspace_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('assets_page_key').on('assets').columns(['workspace_id', 'page_id', 'key']).execute();

    await db.schema
      .createTable('brands')
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.notNull())
      .addColumn('navbar', 'text', (c) => c.notNull())
      .addColumn('footer', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('brands_pk', ['workspace_id', 'project_id'])
      .execute();

    await db.schema
      .createTable('brand_files')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.notNull())
      .addColumn('slot', 'text', (c) => c.notNull())
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('byte_size', 'integer', (c) => c.notNull())
      .addColumn('sha256', 'text', (c) => c.notNull())
      .addColumn('bytes', blob, (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('brand_files_slot', ['workspace_id', 'project_id', 'slot'])
      .execute();
  },
};
