import { sql } from 'kysely';
import type { SqlDialect } from '../sql-dialect.js';

// Accents folded by the Postgres full-text index, so `cafe` finds `café` as FTS5's
// `remove_diacritics` does on SQLite. The query side folds with the same table.
const ACCENTED = 'ÀÁÂÃÄÅàáâãäåÈÉÊËèéêëÌÍÎÏìíîïÒÓÔÕÖòóôõöÙÚÛÜùúûüÑñÇçÝýÿ';
const PLAIN = 'AAAAAAaaaaaaEEEEeeeeIIIIiiiiOOOOOoooooUUUUuuuuNnCcYyy';

/**
 * The indexed expression of a chunk's text on Postgres. A query must repeat it exactly
 * for the planner to use the GIN index.
 */
export const PG_CHUNK_TSVECTOR = `to_tsvector('simple'::regconfig, translate(text, '${ACCENTED}', '${PLAIN}'))`;

/**
 * Postgres, whatever carries it (PGlite in process, or a server): `bytea` and `double
 * precision` columns, a GIN `tsvector` index for full-text search.
 */
export const POSTGRES_DIALECT: SqlDialect = {
  name: 'postgres',
  columnTypes: { blob: 'bytea', real: 'double precision', serial: 'bigserial' },
  chunkFullText: {
    async create(db) {
      await sql`CREATE INDEX knowledge_chunks_fts ON knowledge_chunks USING gin (${sql.raw(PG_CHUNK_TSVECTOR)})`.execute(db);
    },

    async search(db, { workspaceId, agentId, terms, limit }) {
      const tsquery = terms.join(' | ');
      const vector = sql.raw(PG_CHUNK_TSVECTOR);
      const { rows } = await sql<{ id: string; score: number }>`
        SELECT c.id AS id, ts_rank(${vector}, q) AS score
        FROM knowledge_chunks c, to_tsquery('simple'::regconfig, ${tsquery}) q
        WHERE ${vector} @@ q AND c.workspace_id = ${workspaceId} AND (c.agent_id = ${agentId} OR c.agent_id IS NULL)
        ORDER BY score DESC, c.id LIMIT ${limit}`.execute(db);
      return rows.map((r) => ({ chunkId: r.id, score: Number(r.score) }));
    },
  },
};
