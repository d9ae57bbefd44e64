/** Tables of the brand part (see ./core.ts for the column conventions). */
export interface BrandTables {}
