import type { DialectMigration } from './migration.js';

/** Projects (sites), their global slug namespace, pages and themes. */
export const sites: DialectMigration = {
  async up(db) {
    await db.schema
      .createTable('projects')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('locales', 'text', (c) => c.notNull())
      .addColumn('default_locale', 'text', (c) => c.notNull())
      .addColumn('robots', 'text', (c) => c.notNull())
      .addColumn('analytics', 'text', (c) => c.notNull())
      .addColumn('sitemap', 'text', (c) => c.notNull())
      .addColumn('llms_text', 'text', (c) => c.notNull())
      .addColumn('llms_generated_at', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('projects_workspace').on('projects').columns(['workspace_id', 'created_at', 'id']).execute();

    // The primary key is the global namespace: one row per slug, whoever holds it.
    await db.schema
      .createTable('project_slugs')
      .addColumn('slug', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('project_slugs_project').on('project_slugs').columns(['project_id']).execute();

    await db.schema
      .createTable('pages')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('project_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('default_locale', 'text', (c) => c.notNull())
      .addColumn('editorial', 'text', (c) => c.notNull())
      .addColumn('seo', 'text', (c) => c.notNull())
      .addColumn('sitemap', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('agent_id', 'text')
      .addColumn('machine_texts', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('published_at', 'text')
      .addUniqueConstraint('pages_project_path', ['project_id', 'path'])
      .execute();
    await db.schema.createIndex('pages_project').on('pages').columns(['project_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('pages_agent').on('pages').columns(['workspace_id', 'agent_id']).execute();

    await db.schema
      .createTable('themes')
      .addColumn('project_id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('tokens', 'text', (c) => c.notNull())
      .addColumn('customized', 'integer', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },
};
