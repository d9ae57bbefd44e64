import type { DialectMigration } from './migration.js';

export const knowledge: DialectMigration = {
  async up(db, dialect) {
    const { blob } = dialect.columnTypes;

    await db.schema
      .createTable('knowledge_sources')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('agent_id', 'text')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('lang', 'text', (c) => c.notNull())
      .addColumn('source_lang', 'text')
      .addColumn('translated', 'integer', (c) => c.notNull())
      .addColumn('topics', 'text', (c) => c.notNull())
      .addColumn('file_name', 'text')
      .addColumn('content_type', 'text')
      .addColumn('byte_size', 'integer')
      .addColumn('url', 'text')
      .addColumn('resolved_url', 'text')
      .addColumn('last_fetched_at', 'text')
      .addColumn('sync_ttl_minutes', 'integer')
      .addColumn('next_sync_at', 'text')
      .addColumn('claim', 'text')
      .addColumn('chunk_count', 'integer', (c) => c.notNull())
      .addColumn('token_count', 'integer', (c) => c.notNull())
      .addColumn('summary', 'text', (c) => c.notNull())
      .addColumn('content_hash', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('knowledge_sources_workspace').on('knowledge_sources').columns(['workspace_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('knowledge_sources_agent').on('knowledge_sources').columns(['workspace_id', 'agent_id', 'created_at', 'id']).execute();

    await db.schema
      .createTable('knowledge_inputs')
      .addColumn('source_id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('content', blob, (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('knowledge_chunks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('source_id', 'text', (c) => c.notNull())
      .addColumn('agent_id', 'text')
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('lang', 'text', (c) => c.notNull())
      .addColumn('text', 'text', (c) => c.notNull())
      .addColumn('token_count', 'integer', (c) => c.notNull())
      .addColumn('embedding', blob, (c) => c.notNull())
      .addColumn('embedder_id', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('knowledge_chunks_source').on('knowledge_chunks').columns(['source_id', 'position']).execute();
    await db.schema.createIndex('knowledge_chunks_eligible').on('knowledge_chunks').columns(['workspace_id', 'agent_id']).execute();

    // The full-text index of chunk texts (FTS5 or GIN), kept in sync by the database.
    await dialect.chunkFullText.create(db);
  },
};
