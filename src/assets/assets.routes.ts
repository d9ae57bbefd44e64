import type { Context } from 'hono';
import type { AppEnv } from '../platform/context.js';
import { idParam, type HeaderDoc } from '../platform/openapi.js';
import type { Router } from '../platform/route.js';
import type { AssetsService } from './assets.service.js';
import type { StoredFile } from './stored-file.js';
import { AssetDeletedSchema, AssetListQuerySchema, AssetListSchema, AssetSchema, AssetUploadSchema, FileQuerySchema } from './assets.schema.js';

/** Where signed URLs point: the origin the caller reached us on, or the public URL it was given. */
export function requestOrigin(c: Context<AppEnv>): string {
  return c.env?.publicUrl ?? new URL(c.req.url).origin;
}

function fileHeaders(file: StoredFile, maxAgeSeconds: number): Record<string, string> {
  return {
    'cache-control': `public, max-age=${maxAgeSeconds}, immutable`,
    etag: `"${file.sha256}"`,
    'last-modified': new Date(file.createdAt).toUTCString(),
    'x-content-type-options': 'nosniff',
    // An SVG opened on its own runs nothing and loads nothing, whatever it carries.
    'content-security-policy': "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox",
    'accept-ranges': 'none',
  };
}

function etagMatches(header: string | undefined, sha256: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim().replace(/^W\//, '');
    return t === '*' || t === `"${sha256}"`;
  });
}

const ASSET_ID = idParam('asset', 'ast');

const FILE_HEADERS: Record<string, HeaderDoc> = {
  ETag: { description: 'The SHA-256 of the bytes, quoted', required: true, schema: { type: 'string' } },
  'Cache-Control': { description: '`public, max-age=<seconds the signed URL has left>, immutable`', required: true, schema: { type: 'string' } },
  'Last-Modified': { description: 'When the file was stored', required: true, schema: { type: 'string' } },
  'Content-Length': { description: 'Bytes', required: true, schema: { type: 'integer', minimum: 0 } },
};

/** `/v1/assets` upload, list, get and delete, and the signed file route `/files/{assetId}`. */
export function registerAssetsRoutes(router: Router, assets: AssetsService): void {
  const tags = ['Assets'];
  router.add(
    {
      method: 'POST', path: '/v1/assets', operationId: 'uploadAsset', tags, summary: 'Upload an image or a video (multipart); the type is judged by the bytes', scope: 'assets:write',
      body: AssetUploadSchema, bodyKind: 'multipart', invalid: 'svc.asset.invalid',
      responses: { 201: { description: 'The asset with a signed URL', schema: AssetSchema } },
      errors: ['svc.asset.invalid', 'svc.asset.format_unsupported', 'svc.asset.video_too_long', 'svc.asset.id_taken', 'svc.page.not_found', 'svc.request.invalid', 'svc.request.payload_too_large'],
    },
    async ({ c, auth, body }) => ({ status: 201, body: await assets.upload(auth.workspaceId, body, requestOrigin(c)) }),
  );
  router.add(
    {
      method: 'GET', path: '/v1/assets', operationId: 'listAssets', tags, summary: 'List assets, newest first, each with a fresh signed URL', scope: 'assets:read',
      query: AssetListQuerySchema,
      responses: { 200: { description: 'A page of assets', schema: AssetListSchema } },
      errors: ['svc.request.validation_failed'],
    },
    async ({ c, auth, query }) => ({ status: 200, body: await assets.list(auth.workspaceId, query, requestOrigin(c)) }),
  );
  router.add(
    {
      method: 'GET', path: '/v1/assets/:assetId', operationId: 'getAsset', tags, params: { assetId: ASSET_ID }, summary: 'Get an asset with a fresh signed URL', scope: 'assets:read',
      responses: { 200: { description: 'The asset', schema: AssetSchema } },
      errors: ['svc.asset.not_found'],
    },
    async ({ c, auth, params }) => ({ status: 200, body: await assets.getAssetOrThrow(auth.workspaceId, params.assetId, requestOrigin(c)) }),
  );
  router.add(
    {
      method: 'DELETE', path: '/v1/assets/:assetId', operationId: 'deleteAsset', tags, params: { assetId: ASSET_ID }, summary: 'Delete an asset and its bytes', scope: 'assets:write',
      responses: { 200: { description: 'Deleted', schema: AssetDeletedSchema } },
      errors: ['svc.asset.not_found'],
    },
    async ({ auth, params }) => ({ status: 200, body: await assets.delete(auth.workspaceId, params.assetId) }),
  );
  router.add(
    {
      method: 'GET', path: '/files/:assetId', operationId: 'getFile', security: 'none', tags,
      params: { assetId: 'Id of the asset (`ast_...`) or brand file, as in its signed URL' },
      summary: 'The bytes of an asset or brand file behind a signed URL (no API key)',
      query: FileQuerySchema,
      responses: {
        200: { description: 'The bytes, in the content type they were judged to be', files: assets.servedContentTypes(), headers: FILE_HEADERS },
        304: { description: 'Not modified: `If-None-Match` holds its ETag', headers: { ETag: FILE_HEADERS.ETag!, 'Cache-Control': FILE_HEADERS['Cache-Control']! } },
      },
      errors: ['svc.auth.forbidden', 'svc.asset.not_found'],
    },
    async ({ c, params, query }) => {
      const { file, maxAgeSeconds } = await assets.openFile(params.assetId, query.expires, query.signature);
      const headers = fileHeaders(file, maxAgeSeconds);
      if (etagMatches(c.req.header('if-none-match'), file.sha256)) return new Response(null, { status: 304, headers });
      return new Response(file.bytes, { status: 200, headers: { ...headers, 'content-type': file.contentType, 'content-length': String(file.byteSize) } });
    },
  );
}
