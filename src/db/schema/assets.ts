/** Tables of the assets part (see ./core.ts for the column conventions). */
export interface AssetTables {}
