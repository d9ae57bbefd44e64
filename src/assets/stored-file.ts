/** Bytes that `GET /files/{assetId}` can serve: an asset or a brand file. */
export interface StoredFile {
  id: string;
  contentType: string;
  byteSize: number;
  sha256: string;
  bytes: Uint8Array;
  createdAt: string;
  /** The table the bytes live in, to name a row that cannot be served. */
  table: string;
}

/** The columns a stored file is read from, in `assets` and `brand_files` alike. */
export const STORED_FILE_COLUMNS = ['id', 'content_type', 'byte_size', 'sha256', 'bytes', 'created_at'] as const;

/** A row of `STORED_FILE_COLUMNS` from `table`, as a `StoredFile`. */
export function storedFile(
  row: { id: string; content_type: string; byte_size: number | bigint | string; sha256: string; bytes: Uint8Array; created_at: string },
  table: string,
): StoredFile {
  return {
    id: row.id,
    contentType: row.content_type,
    byteSize: Number(row.byte_size),
    sha256: row.sha256,
    bytes: row.bytes,
    createdAt: row.created_at,
    table,
  };
}

/** Finds stored bytes by id in another part's tables (brand files). */
export type FileSource = (fileId: string) => Promise<StoredFile | undefined>;
