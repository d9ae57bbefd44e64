import { sql } from 'kysely';
import type { SqlDialect } from '../sql-dialect.js';

/** SQLite (better-sqlite3, in memory or a file): FTS5 with an external-content index. */
export const SQLITE_DIALECT: SqlDialect = {
  name: 'sqlite',
  columnTypes: { blob: 'blob', real: 'real', serial: 'integer' },
  chunkFullText: {
    async create(db) {
      // External content: the index stores no second copy of the text. Triggers keep it
      // in sync through every insert and delete, state imports and workspace drops included.
      await sql`CREATE VIRTUAL TABLE knowledge_chunks_fts USING fts5(text, content='knowledge_chunks', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')`.execute(
        db,
      );
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
    },

    async search(db, { workspaceId, agentId, terms, limit }) {
      const match = terms.map((t) => `"${t}"`).join(' OR ');
      const { rows } = await sql<{ id: string; rank: number }>`
        SELECT c.id AS id, bm25(knowledge_chunks_fts) AS rank
        FROM knowledge_chunks_fts JOIN knowledge_chunks c ON c.rowid = knowledge_chunks_fts.rowid
        WHERE knowledge_chunks_fts MATCH ${match}
          AND c.workspace_id = ${workspaceId} AND (c.agent_id = ${agentId} OR c.agent_id IS NULL)
        ORDER BY rank, c.id LIMIT ${limit}`.execute(db);
      // bm25() is lower-is-better and negative.
      return rows.map((r) => ({ chunkId: r.id, score: -Number(r.rank) }));
    },
  },
};
