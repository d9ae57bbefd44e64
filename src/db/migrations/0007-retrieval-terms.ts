import type { DialectMigration } from './migration.js';

/**
 * Retrieval's stored analysis (issue 14): each chunk's terms and the analyzer that made
 * them, and each workspace's term dictionary. Existing chunks start without terms and
 * are analysed when they are next read.
 */
export const retrievalTerms: DialectMigration = {
  async up(db, dialect) {
    await db.schema.alterTable('knowledge_chunks').addColumn('terms', dialect.columnTypes.blob).execute();
    await db.schema.alterTable('knowledge_chunks').addColumn('analyzer_id', 'text').execute();

    await db.schema
      .createTable('knowledge_terms')
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('term', 'text', (c) => c.notNull())
      .addColumn('id', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('knowledge_terms_pk', ['workspace_id', 'term'])
      .execute();
    await db.schema.createIndex('knowledge_terms_id').on('knowledge_terms').columns(['workspace_id', 'id']).unique().execute();
  },
};
