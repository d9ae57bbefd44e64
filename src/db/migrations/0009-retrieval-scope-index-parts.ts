import type { DialectMigration } from './migration.js';

/**
 * A stored scope index in parts (issue 14): the head, then the postings in blocks that a
 * query reads when it first uses one of their terms (decisions, D-600). The rows are
 * derived, so the table is made again empty: a scope's next query builds and stores it.
 */
export const retrievalScopeIndexParts: DialectMigration = {
  async up(db, dialect) {
    await db.schema.dropTable('knowledge_scope_indexes').execute();
    await db.schema
      .createTable('knowledge_scope_indexes')
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('part', 'integer', (c) => c.notNull())
      .addColumn('version', 'text', (c) => c.notNull())
      .addColumn('data', dialect.columnTypes.blob, (c) => c.notNull())
      .addPrimaryKeyConstraint('knowledge_scope_indexes_pk', ['workspace_id', 'agent_id', 'part'])
      .execute();
  },
};
