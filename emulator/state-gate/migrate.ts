// Older documents of state version 1 (decisions, D-724). The version has not moved since
// the first release, but what an export held has: before issue 14 chunks had no `terms`
// and `analyzer_id` columns; for a while exports carried retrieval's derived tables
// (`knowledge_terms`, `knowledge_scope_indexes`, the latter in an older layout) and each
// chunk's analysed terms. Those are derived: they are dropped here and built again after
// the import, as for a document written today.

type Row = Record<string, unknown>;

const DERIVED_TABLES = ['knowledge_terms', 'knowledge_scope_indexes'];
const DERIVED_COLUMNS: Record<string, string[]> = { knowledge_chunks: ['terms', 'analyzer_id'] };

/** A version 1 document's tables as an export writes them today (the input is not changed). */
export function migrateTables(tables: Record<string, Row[]>): Record<string, Row[]> {
  const out: Record<string, Row[]> = {};
  for (const [table, rows] of Object.entries(tables)) {
    if (DERIVED_TABLES.includes(table)) continue;
    const derived = DERIVED_COLUMNS[table];
    out[table] = derived ? rows.map((row) => ({ ...row, ...Object.fromEntries(derived.map((c) => [c, null])) })) : rows;
  }
  return out;
}
