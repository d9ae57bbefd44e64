import type { DialectMigration } from './migration.js';

/**
 * Each workspace's bilingual lexicon, learned from its own translations (issue 25,
 * decisions D-785, D-790): one row per workspace, the print of the sources it was
 * learned from and the lexicon as JSON text.
 */
export const retrievalLexicons: DialectMigration = {
  async up(db) {
    await db.schema.createTable('knowledge_lexicons')
      .addColumn('workspace_id', 'text', (c) => c.notNull().primaryKey())
      .addColumn('print', 'text', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .execute();
  },
};
