/** Tables of the knowledge part (see ./core.ts for the column conventions). */
export interface KnowledgeTables {}
