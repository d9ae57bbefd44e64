/** Tables of the pages part (see ./core.ts for the column conventions). */
export interface PageTables {}
