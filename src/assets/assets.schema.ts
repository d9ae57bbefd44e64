import * as v from 'valibot';
import { named, namedListPage } from '../platform/named-schema.js';
import { listQuery } from '../platform/pagination.js';
import { clientText } from '../platform/validation.js';

const KEY_RULE = 'must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit';

const Key = v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, KEY_RULE));
const PageId = clientText({ min: 1, max: 64, message: 'must be a page id' });
const Alt = clientText({ max: 500 });

/** `POST /v1/assets` (multipart): the file and its optional key, page and alt text. */
export const AssetUploadSchema = named(
  'AssetUpload',
  v.strictObject({
    file: v.instance(File, 'must be a file'),
    key: v.optional(Key),
    pageId: v.optional(PageId),
    alt: v.optional(Alt),
  }),
);

export type AssetUpload = v.InferOutput<typeof AssetUploadSchema>;

export const AssetListQuerySchema = listQuery({
  pageId: v.optional(PageId),
  key: v.optional(Key),
  kind: v.optional(v.picklist(['image', 'video'], 'must be image or video')),
});

export type AssetListQuery = v.InferOutput<typeof AssetListQuerySchema>;

/** Query of `GET /files/{assetId}`; a missing or malformed part is a bad signature, not a 400. */
export const FileQuerySchema = v.object({
  expires: v.optional(v.pipe(v.string(), v.description('When the signed URL expires (epoch seconds), as signed'))),
  signature: v.optional(v.pipe(v.string(), v.description('HMAC-SHA256 signature of the URL'))),
});

export const AssetSchema = named(
  'Asset',
  v.object({
    id: v.string(),
    key: v.optional(v.string()),
    pageId: v.optional(v.string()),
    alt: v.optional(v.string()),
    kind: v.picklist(['image', 'video']),
    contentType: v.string(),
    byteSize: v.number(),
    width: v.optional(v.number()),
    height: v.optional(v.number()),
    durationSeconds: v.optional(v.number()),
    url: v.string(),
    urlExpiresAt: v.string(),
    createdAt: v.string(),
  }),
);

/** An asset as the API answers it (with a fresh signed URL). */
export type Asset = v.InferOutput<typeof AssetSchema>;

export const AssetListSchema = namedListPage('AssetList', AssetSchema);

export const AssetDeletedSchema = named('AssetDeleted', v.object({ assetId: v.string(), deleted: v.literal(true) }));
