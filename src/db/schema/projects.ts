/** Tables of the projects part (see ./core.ts for the column conventions). */
export interface ProjectTable {
  id: string;
  workspace_id: string;
  name: string;
  /** The slug in force; the global claim on it lives in `project_slugs`. */
  slug: string;
  /** JSON array of `es` / `en`, in the order the owner gave. */
  locales: string;
  default_locale: string;
  /** JSON `{ indexable, aiSearch, aiTraining, disallow, raw }`. */
  robots: string;
  /** JSON `{ clarityId, gtmId, metaPixelId, posthogKey }`. */
  analytics: string;
  /** JSON `{ extraUrls: [{ path, priority, changefreq }] }`. */
  sitemap: string;
  llms_text: string;
  llms_generated_at: string;
  created_at: string;
  updated_at: string;
}

/**
 * The global slug namespace. The primary key on `slug` is what makes two workspaces
 * racing for one slug end with exactly one owner. A `retired` row is an address a
 * project moved away from: it stays held for its workspace until the project goes.
 */
export interface ProjectSlugTable {
  slug: string;
  workspace_id: string;
  project_id: string;
  /** `active` (the project's address) or `retired`. */
  state: string;
  updated_at: string;
}

export interface ProjectTables {
  projects: ProjectTable;
  project_slugs: ProjectSlugTable;
}
