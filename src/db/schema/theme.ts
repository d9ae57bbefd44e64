/** Tables of the theme part (see ./core.ts for the column conventions). */
export interface ThemeTable {
  /** One theme per project; a project without a row uses the defaults. */
  project_id: string;
  workspace_id: string;
  /** JSON of the whole token set in force. */
  tokens: string;
  customized: number;
  updated_at: string;
}

export interface ThemeTables {
  themes: ThemeTable;
}
