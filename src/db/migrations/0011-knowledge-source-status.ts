import type { DialectMigration } from './migration.js';

/**
 * Sources of a workspace by status: every settled source asks whether another is still
 * pending before it schedules the lexicon (D-1041), a scan of the workspace's sources
 * without this index, so quadratic in the sources one upload burst brings.
 */
export const knowledgeSourceStatus: DialectMigration = {
  async up(db) {
    await db.schema.createIndex('knowledge_sources_status').on('knowledge_sources').columns(['workspace_id', 'status']).execute();
  },
};
