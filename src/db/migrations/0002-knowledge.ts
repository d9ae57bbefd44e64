import { sql } from 'kysely';
import type { DialectMigration } from '../migrate.js';
import { columnTypes } from '../migrate.js';

// Accents folded by the Postgres full-text index, so `cafe` finds `café` as FTS5's
// `remove_diacritics` does on SQLite. The query side folds with the same table.
const ACCENTED = 'ÀÁÂÃÄÅàáâãäåÈÉÊËèéêëÌÍÎÏìíîïÒÓÔÕÖòóôõöÙÚÛÜùúûüÑñÇçÝýÿ';
const PLAIN = 'AAAAAAaaaaaaEEEEeeeeIIIIiiiiOOOOOoooooUUUUuuuuNnCcYyy';

/**
 * The indexed expression of a chunk's text on Postgres. A query must repeat it exactly
 * for the planner to use the GIN index.
 */
export const PG_CHUNK_TSVECTOR = `to_tsvector('simple'::regconfig, translate(text, '${ACCENTED}', '${PLAIN}'))`;

export const knowledge: DialectMigration = {
  async up(db, dialect) {
    const { blob } = columnTypes(dialect);

    await db.schema.createTable('knowledge_sources')
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

    await db.schema.createTable('knowledge_inputs')
      .addColumn('source_id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('content', blob, (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema.createTable('knowledge_chunks')
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

    if (dialect === 'sqlite') {
      // External content: the index stores no second copy of the text. Triggers keep it
      // in sync through every insert and delete, state imports and workspace drops included.
      await sql`CREATE VIRTUAL TABLE knowledge_chunks_fts USING fts5(text, content='knowledge_chunks', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')`.execute(db);
      await sql`CREATE TRIGGER knowledge_chunks_fts_insert AFTER INSERT ON knowledge_chunks BEGIN
        INSERT INTO knowledge_chunks_fts(rowid, text) VALUES (new.rowid, new.text);
      END`.execute(db);
      await sql`CREATE TRIGGER knowledge_chunks_fts_delete AFTER DELETE ON knowledge_chunks BEGIN
        INSERT INTO knowledge_chunks_fts(knowledge_chunks_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
      END`.execute(db);
      await sql`CREATE TRIGGER knowledge_chunks_fts_update AFTER UPDATE OF text ON knowledge_chunks BEGIN
        INSERT INTO knowledge_chunks_fts(knowledge_chunks_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
        INSERT INTO knowledge_chunks_fts(rowid, text) VALUES (new.rowid, new.text);
      END`.execute(db);
    } else {
      await sql`CREATE INDEX knowledge_chunks_fts ON knowledge_chunks USING gin (${sql.raw(PG_CHUNK_TSVECTOR)})`.execute(db);
    }
  },
};
