import type { DialectMigration } from './migration.js';

/**
 * A workspace's pages of every project, newest first, by one seek: the console's overview
 * polls them every second, and asking each project for its own (at most 1,000 of them)
 * made a poll cost a query per project.
 */
export const pagesNewest: DialectMigration = {
  async up(db) {
    await db.schema.createIndex('pages_workspace_newest').on('pages').columns(['workspace_id', 'created_at', 'id']).execute();
  },
};
