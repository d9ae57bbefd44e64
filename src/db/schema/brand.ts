/** Tables of the brand part (see ./core.ts for the column conventions). */

/** The navbar and footer of a project's brand; files live in `brand_files`. */
export interface BrandTable {
  workspace_id: string;
  project_id: string;
  /** JSON `{ links, cta }`. */
  navbar: string;
  /** JSON `{ text, links }`. */
  footer: string;
  created_at: string;
  updated_at: string;
}

/** One file in a brand slot (`logo`, `logo-dark`, `favicon`); replaced whole, never edited. */
export interface BrandFileTable {
  /** `ast_...`: served by `GET /files/{assetId}` like any asset. */
  id: string;
  workspace_id: string;
  project_id: string;
  slot: string;
  content_type: string;
  byte_size: number;
  sha256: string;
  bytes: Uint8Array;
  created_at: string;
}

export interface BrandTables {
  brands: BrandTable;
  brand_files: BrandFileTable;
}
