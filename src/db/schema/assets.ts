/** Tables of the assets part (see ./core.ts for the column conventions). */

/** An uploaded image or video; its bytes live in the row, so they travel with the store. */
export interface AssetTable {
  id: string;
  workspace_id: string;
  /** Unique per page (assets without a page share one scope). */
  key: string | null;
  page_id: string | null;
  alt: string | null;
  /** `image` or `video`. */
  kind: string;
  content_type: string;
  byte_size: number;
  width: number | null;
  height: number | null;
  duration_seconds: number | null;
  /** SHA-256 of the bytes, lowercase hex: the ETag of `GET /files/{assetId}`. */
  sha256: string;
  bytes: Uint8Array;
  created_at: string;
}

export interface AssetTables {
  assets: AssetTable;
}
