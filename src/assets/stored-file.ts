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

/** Finds stored bytes by id in another part's tables (brand files). */
export type FileSource = (fileId: string) => Promise<StoredFile | undefined>;
