/** Tables of the projects part (see ./core.ts for the column conventions). */
export interface ProjectTables {}
