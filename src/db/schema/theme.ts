/** Tables of the theme part (see ./core.ts for the column conventions). */
export interface ThemeTables {}
