import type { CoreDeps } from '../core.js';
import type { Db } from '../db/schema/index.js';
import type { AssetTable } from '../db/schema/assets.js';
import { lockWorkspaceRow } from '../db/row-locks.js';
import { paginate, type ListPage, type ListParams } from '../platform/pagination.js';
import { ServiceError } from '../platform/service-error.js';
import { isStoredTimestamp, unreadableStored } from '../platform/stored.js';
import { iso } from '../platform/time.js';
import { movable, WorkerLimitError, workerModule, type WorkerPool } from '../platform/worker-pool.js';
import type { Asset, AssetListQuery, AssetUpload } from './assets.schema.js';
import type { MediaInfo } from './media.js';
import { ASSET_IMAGE_TYPES, ASSET_VIDEO_TYPES } from './media-types.js';
import { UrlSigner, type SignedUrl } from './signed-url.js';
import { type FileSource, STORED_FILE_COLUMNS, type StoredFile, storedFile } from './stored-file.js';
import type * as MediaWorker from './media.worker.js';

/** The one thing assets need of pages: that a page exists in the workspace. */
export interface PageLookup {
  getPageOrThrow(workspaceId: string, pageId: string, db?: Db): Promise<unknown>;
}

type AssetRow = Omit<AssetTable, 'bytes'>;

const MEDIA_WORKER = workerModule<typeof MediaWorker>(import.meta.url, 'media.worker');

const META_COLUMNS = [
  'id',
  'workspace_id',
  'key',
  'page_id',
  'alt',
  'kind',
  'content_type',
  'byte_size',
  'width',
  'height',
  'duration_seconds',
  'sha256',
  'created_at',
] as const satisfies readonly (keyof AssetRow)[];

function forbidden(reason: 'expired' | 'invalid'): ServiceError {
  return new ServiceError('svc.auth.forbidden', {
    detail:
      reason === 'expired'
        ? {
            en: 'This file link has expired; fetch the asset again for a fresh URL.',
            es: 'Este enlace de archivo caducó; vuelva a pedir el recurso para obtener una URL nueva.',
          }
        : { en: 'This file link is not valid.', es: 'Este enlace de archivo no es válido.' },
  });
}

/**
 * Uploaded images and videos of a workspace. The type is judged by the bytes; the
 * bytes live in the store (so they survive a restart and travel with a state export)
 * and are served by short-lived signed URLs.
 */
export class AssetsService {
  readonly signer: UrlSigner;
  readonly #fileSources: FileSource[] = [];
  readonly #fileTypes = new Set([...ASSET_IMAGE_TYPES, ...ASSET_VIDEO_TYPES]);

  constructor(private readonly deps: CoreDeps & { pages: PageLookup; workers: WorkerPool }) {
    this.signer = new UrlSigner(deps.settings.secret, deps.clock);
  }

  /** Lets `GET /files/{assetId}` serve bytes another part stores (brand files), of these content types. */
  addFileSource(source: FileSource, contentTypes: readonly string[]): void {
    this.#fileSources.push(source);
    for (const type of contentTypes) this.#fileTypes.add(type);
  }

  /** Every content type `GET /files/{assetId}` can answer with (the OpenAPI description lists them). */
  servedContentTypes(): string[] {
    return [...this.#fileTypes].sort();
  }

  /** A fresh signed URL for any stored file id, under `origin`. */
  signedUrl(fileId: string, origin: string): SignedUrl {
    return this.signer.sign(fileId, origin);
  }

  #toAsset(row: AssetRow, origin: string): Asset {
    return {
      id: row.id,
      ...(row.key !== null && { key: row.key }),
      ...(row.page_id !== null && { pageId: row.page_id }),
      ...(row.alt !== null && { alt: row.alt }),
      kind: row.kind as Asset['kind'],
      contentType: row.content_type,
      byteSize: Number(row.byte_size),
      ...(row.width !== null && { width: Number(row.width) }),
      ...(row.height !== null && { height: Number(row.height) }),
      ...(row.duration_seconds !== null && { durationSeconds: Number(row.duration_seconds) }),
      ...this.signer.sign(row.id, origin),
      createdAt: row.created_at,
    };
  }

  /** Judges the file by its bytes, then stores it; `origin` is where its URL points. */
  async upload(workspaceId: string, input: AssetUpload, origin: string): Promise<Asset> {
    const { media, sha256, bytes } = await this.#inspect(new Uint8Array(await input.file.arrayBuffer()));
    return this.deps.db.transaction().execute(async (trx) => {
      // The workspace's row, locked (D-1140): an upload meeting the workspace's deletion in
      // another process finds it gone rather than storing a file of no workspace, and two
      // uploads under one key take turns, so that the second gets the 409, not a duplicate.
      if (!(await lockWorkspaceRow(trx, workspaceId))) throw new ServiceError('svc.api_key.invalid');
      if (input.pageId !== undefined) await this.deps.pages.getPageOrThrow(workspaceId, input.pageId, trx);
      if (input.key !== undefined) await this.#assertKeyFree(trx, workspaceId, input.pageId ?? null, input.key);
      const row: AssetTable = {
        id: this.deps.ids.next('ast'),
        workspace_id: workspaceId,
        key: input.key ?? null,
        page_id: input.pageId ?? null,
        alt: input.alt ?? null,
        kind: media.kind,
        content_type: media.contentType,
        byte_size: bytes.byteLength,
        width: media.width ?? null,
        height: media.height ?? null,
        duration_seconds: media.durationSeconds ?? null,
        sha256,
        bytes,
        created_at: iso(this.deps.clock.now()),
      };
      await trx.insertInto('assets').values(row).execute();
      return this.#toAsset(row, origin);
    });
  }

  /** `inspectMedia` in a worker; a check over its time or memory limit is a format the service cannot take. */
  async #inspect(bytes: Uint8Array): Promise<{ media: MediaInfo; sha256: string; bytes: Uint8Array }> {
    try {
      // The bytes move to the thread and come back with the answer.
      return await this.deps.workers.run(MEDIA_WORKER, 'inspect', bytes, { transfer: movable(bytes) });
    } catch (error) {
      if (!(error instanceof WorkerLimitError)) throw error;
      throw new ServiceError('svc.asset.format_unsupported', {
        detail: {
          en: `Checking the file ran over its ${error.limit} limit.`,
          es: `La comprobación del archivo superó su límite de ${error.limit === 'time' ? 'tiempo' : 'memoria'}.`,
        },
        errors: [{ field: 'file', reason: `checking the file ran over its ${error.limit} limit` }],
      });
    }
  }

  async #assertKeyFree(trx: Db, workspaceId: string, pageId: string | null, key: string): Promise<void> {
    let query = trx.selectFrom('assets').select('id').where('workspace_id', '=', workspaceId).where('key', '=', key);
    query = pageId === null ? query.where('page_id', 'is', null) : query.where('page_id', '=', pageId);
    const holder = await query.executeTakeFirst();
    if (holder) {
      throw new ServiceError('svc.asset.id_taken', {
        detail: { en: `The key "${key}" is already used by another asset of this page.`, es: `La clave "${key}" ya la usa otro recurso de esta página.` },
        errors: [{ field: 'key', reason: 'taken', assetId: holder.id }],
      });
    }
  }

  /** Assets newest first, each with a fresh URL; filters by page, key and kind. */
  async list(workspaceId: string, query: AssetListQuery, origin: string): Promise<ListPage<Asset>> {
    let q = this.deps.db.selectFrom('assets').select(META_COLUMNS).where('workspace_id', '=', workspaceId);
    if (query.pageId !== undefined) q = q.where('page_id', '=', query.pageId);
    if (query.key !== undefined) q = q.where('key', '=', query.key);
    if (query.kind !== undefined) q = q.where('kind', '=', query.kind);
    const params: ListParams = { limit: query.limit, after: query.after, before: query.before };
    return paginate(this.deps.cursors, `${workspaceId}:assets`, params, q, (row) => this.#toAsset(row, origin));
  }

  async getAsset(workspaceId: string, assetId: string, origin: string, db: Db = this.deps.db): Promise<Asset | undefined> {
    const row = await db.selectFrom('assets').select(META_COLUMNS).where('workspace_id', '=', workspaceId).where('id', '=', assetId).executeTakeFirst();
    return row && this.#toAsset(row, origin);
  }

  /** The asset with a fresh signed URL, or `404 svc.asset.not_found`. */
  async getAssetOrThrow(workspaceId: string, assetId: string, origin: string, db: Db = this.deps.db): Promise<Asset> {
    const asset = await this.getAsset(workspaceId, assetId, origin, db);
    if (!asset) throw new ServiceError('svc.asset.not_found');
    return asset;
  }

  /** Deletes the asset and its bytes; URLs already handed out stop working at once. */
  async delete(workspaceId: string, assetId: string): Promise<{ assetId: string; deleted: true }> {
    const result = await this.deps.db.deleteFrom('assets').where('workspace_id', '=', workspaceId).where('id', '=', assetId).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw new ServiceError('svc.asset.not_found');
    return { assetId, deleted: true };
  }

  /**
   * The bytes behind a signed URL. The signature is checked before any lookup, so a
   * forged or expired link learns nothing (`403 svc.auth.forbidden`); a genuine link
   * to a file deleted since is `404 svc.asset.not_found`.
   */
  async openFile(fileId: string, expires: string | undefined, signature: string | undefined): Promise<{ file: StoredFile; maxAgeSeconds: number }> {
    const verdict = this.signer.verify(fileId, expires, signature);
    if (!verdict.ok) throw forbidden(verdict.reason);
    const file = (await this.#storedAsset(fileId)) ?? (await this.#fromSources(fileId));
    if (!file) throw new ServiceError('svc.asset.not_found');
    this.#assertServable(file);
    return { file, maxAgeSeconds: Math.max(0, Math.floor((verdict.expiresAtMs - this.deps.clock.now()) / 1000)) };
  }

  /**
   * What becomes a header must be what this service stores: a hex SHA-256 (the ETag), a
   * content type it serves, a timestamp; the length sent is always the bytes' own (D-722).
   */
  #assertServable(file: StoredFile): void {
    const at = (column: string) => ({ table: file.table, row: file.id, column });
    if (!(file.bytes instanceof Uint8Array)) throw unreadableStored(at('bytes'), 'not bytes');
    if (typeof file.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(file.sha256)) throw unreadableStored(at('sha256'), 'must be a hex SHA-256');
    if (!this.#fileTypes.has(file.contentType)) throw unreadableStored(at('content_type'), 'not a content type this service serves');
    if (!isStoredTimestamp(file.createdAt)) throw unreadableStored(at('created_at'), 'not a timestamp');
  }

  async #storedAsset(id: string): Promise<StoredFile | undefined> {
    const row = await this.deps.db.selectFrom('assets').select(STORED_FILE_COLUMNS).where('id', '=', id).executeTakeFirst();
    return row && storedFile(row, 'assets');
  }

  async #fromSources(id: string): Promise<StoredFile | undefined> {
    for (const source of this.#fileSources) {
      const file = await source(id);
      if (file) return file;
    }
    return undefined;
  }
}
