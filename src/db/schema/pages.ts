/** Tables of the pages part (see ./core.ts for the column conventions). */
export interface PageTable {
  id: string;
  workspace_id: string;
  project_id: string;
  name: string;
  /** `agent` or `document`; fixed at creation. */
  kind: string;
  /** Lowercase; unique per project (`pages_project_path`). */
  path: string;
  /** `draft` or `published`. */
  status: string;
  default_locale: string;
  /** JSON `{ badge, title, titleAccent, description }`, each `{ es, en }`. */
  editorial: string;
  /** JSON `{ title, description }`, each `{ es, en }`. */
  seo: string;
  /** JSON `{ priority, changefreq, sitemapExclude }`. */
  sitemap: string;
  /** JSON `{ es, en }` Markdown. */
  body: string;
  agent_id: string | null;
  /** JSON array of text paths (`seo.title.es`) the translator wrote, not the owner. */
  machine_texts: string;
  created_at: string;
  updated_at: string;
  published_at: string | null;
}

export interface PageTables {
  pages: PageTable;
}
