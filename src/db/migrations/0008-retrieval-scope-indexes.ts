import type { DialectMigration } from './migration.js';

/**
 * Retrieval's built scope indexes (issue 14): one row per agent scope, so that the first
 * query after a restart reads one value instead of every chunk (decisions, D-308).
 */
export const retrievalScopeIndexes: DialectMigration = {
  async up(db, dialect) {
    await db.schema
      .createTable('knowledge_scope_indexes')
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('version', 'text', (c) => c.notNull())
      .addColumn('data', dialect.columnTypes.blob, (c) => c.notNull())
      .addPrimaryKeyConstraint('knowledge_scope_indexes_pk', ['workspace_id', 'agent_id'])
      .execute();
  },
};
