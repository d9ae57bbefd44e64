import type { Transaction } from 'kysely';
import { STORED_FILE_COLUMNS, type StoredFile, storedFile } from '../assets/stored-file.js';
import type { SignedUrl } from '../assets/signed-url.js';
import type { CoreDeps } from '../core.js';
import type { BrandFileTable, BrandTable } from '../db/schema/brand.js';
import type { Database, Db } from '../db/schema/index.js';
import { ServiceError } from '../platform/service-error.js';
import { parseOrThrow } from '../platform/validation.js';
import { storedJson } from '../platform/stored.js';
import { iso } from '../platform/time.js';
import { movable, WorkerLimitError, workerModule, type WorkerPool } from '../platform/worker-pool.js';
import { SLOT_FORMATS, SLOT_TYPES } from './brand-file.js';
import { SlotParamSchema, StoredFooterSchema, StoredNavbarSchema, type Brand, type BrandLink, type BrandPatch, type BrandSlot } from './brand.schema.js';
import type * as BrandFileWorker from './brand-file.worker.js';

/** What brand needs of projects: that a site exists in the workspace, and its row locked before a write (D-1131). */
export interface ProjectLookup {
  getProjectOrThrow(workspaceId: string, projectId: string, db?: Db): Promise<unknown>;
  lockProjectOrThrow(trx: Transaction<Database>, workspaceId: string, projectId: string): Promise<unknown>;
}

/** Who signs file URLs (the assets part: brand files are served by `/files/{assetId}`). */
export interface FileUrls {
  signedUrl(fileId: string, origin: string): SignedUrl;
}

interface Navbar {
  links: BrandLink[];
  cta: BrandLink | null;
}

interface Footer {
  text: { es: string; en: string };
  links: BrandLink[];
}

const EMPTY_NAVBAR: Navbar = { links: [], cta: null };
const EMPTY_FOOTER: Footer = { text: { es: '', en: '' }, links: [] };

const RECORD_KEY: Record<BrandSlot, 'logo' | 'logoDark' | 'favicon'> = { logo: 'logo', 'logo-dark': 'logoDark', favicon: 'favicon' };

type FileMeta = Omit<BrandFileTable, 'bytes'>;
const FILE_META = ['id', 'workspace_id', 'project_id', 'slot', 'content_type', 'byte_size', 'sha256', 'created_at'] as const;

const BRAND_FILE_WORKER = workerModule<typeof BrandFileWorker>(import.meta.url, 'brand-file.worker');

/**
 * The brand of a site: logo, dark logo and favicon files (judged by their bytes; SVGs
 * pass a guard first) and the navbar and footer the public site renders.
 */
export class BrandService {
  constructor(private readonly deps: CoreDeps & { projects: ProjectLookup; files: FileUrls; workers: WorkerPool }) {}

  /** `inspectBrandFile` in a worker; a check over its time or memory limit is refused as a format the slot cannot take. */
  async #inspect(slot: BrandSlot, bytes: Uint8Array): Promise<{ contentType: string; sha256: string; bytes: Uint8Array }> {
    try {
      // The bytes move to the thread and come back with the answer.
      return await this.deps.workers.run(BRAND_FILE_WORKER, 'inspect', { slot, bytes }, { transfer: movable(bytes) });
    } catch (error) {
      if (!(error instanceof WorkerLimitError)) throw error;
      const why = `checking the file ran over its ${error.limit} limit`;
      throw new ServiceError('svc.brand.format_unsupported', {
        detail: { en: `The ${slot} slot takes ${SLOT_FORMATS[slot]}: ${why}.`, es: `La posición ${slot} acepta ${SLOT_FORMATS[slot]}: ${why}.` },
        errors: [{ field: 'file', reason: why }],
      });
    }
  }

  #slot(slot: string): BrandSlot {
    return parseOrThrow(SlotParamSchema, { slot }, 'svc.brand.invalid').slot;
  }

  async #render(db: Db, workspaceId: string, projectId: string, origin: string): Promise<Brand> {
    const row = await db.selectFrom('brands').selectAll().where('workspace_id', '=', workspaceId).where('project_id', '=', projectId).executeTakeFirst();
    const files = await db.selectFrom('brand_files').select(FILE_META).where('workspace_id', '=', workspaceId).where('project_id', '=', projectId).execute();
    const brand: Brand = {
      logo: null,
      logoDark: null,
      favicon: null,
      navbar: row ? storedJson(StoredNavbarSchema, row.navbar, { table: 'brands', row: projectId, column: 'navbar' }) : EMPTY_NAVBAR,
      footer: row ? storedJson(StoredFooterSchema, row.footer, { table: 'brands', row: projectId, column: 'footer' }) : EMPTY_FOOTER,
      updatedAt: row?.updated_at ?? null,
    };
    for (const file of files as FileMeta[]) {
      brand[RECORD_KEY[file.slot as BrandSlot]] = {
        contentType: file.content_type,
        byteSize: Number(file.byte_size),
        ...this.deps.files.signedUrl(file.id, origin),
      };
    }
    return brand;
  }

  /** The brand of a site (empty slots are null); `404 svc.project.not_found` for no such site. */
  async getBrand(workspaceId: string, projectId: string, origin: string, db: Db = this.deps.db): Promise<Brand> {
    await this.deps.projects.getProjectOrThrow(workspaceId, projectId, db);
    return this.#render(db, workspaceId, projectId, origin);
  }

  /** Marks the brand changed now, creating its row on the first change. */
  async #touch(trx: Transaction<Database>, workspaceId: string, projectId: string, set: Partial<Pick<BrandTable, 'navbar' | 'footer'>> = {}): Promise<void> {
    const now = iso(this.deps.clock.now());
    await trx
      .insertInto('brands')
      .values({
        workspace_id: workspaceId,
        project_id: projectId,
        navbar: JSON.stringify(EMPTY_NAVBAR),
        footer: JSON.stringify(EMPTY_FOOTER),
        created_at: now,
        updated_at: now,
        ...set,
      })
      .onConflict((oc) => oc.columns(['workspace_id', 'project_id']).doUpdateSet({ updated_at: now, ...set }))
      .execute();
  }

  /** Puts a file in a slot, replacing what was there (a new id, so a new URL). */
  async putFile(workspaceId: string, projectId: string, slotName: string, file: File, origin: string): Promise<Brand> {
    const slot = this.#slot(slotName);
    const { contentType, sha256, bytes } = await this.#inspect(slot, new Uint8Array(await file.arrayBuffer()));
    return this.deps.db.transaction().execute(async (trx) => {
      await this.deps.projects.lockProjectOrThrow(trx, workspaceId, projectId);
      await trx.deleteFrom('brand_files').where('workspace_id', '=', workspaceId).where('project_id', '=', projectId).where('slot', '=', slot).execute();
      const row: BrandFileTable = {
        id: this.deps.ids.next('ast'),
        workspace_id: workspaceId,
        project_id: projectId,
        slot,
        content_type: contentType,
        byte_size: bytes.byteLength,
        sha256,
        bytes,
        created_at: iso(this.deps.clock.now()),
      };
      await trx.insertInto('brand_files').values(row).execute();
      await this.#touch(trx, workspaceId, projectId);
      return this.#render(trx, workspaceId, projectId, origin);
    });
  }

  /** Empties a slot; an empty slot is `404 svc.brand.not_found`. */
  async deleteFile(workspaceId: string, projectId: string, slotName: string, origin: string): Promise<Brand> {
    const slot = this.#slot(slotName);
    return this.deps.db.transaction().execute(async (trx) => {
      await this.deps.projects.lockProjectOrThrow(trx, workspaceId, projectId);
      const result = await trx
        .deleteFrom('brand_files')
        .where('workspace_id', '=', workspaceId)
        .where('project_id', '=', projectId)
        .where('slot', '=', slot)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) {
        throw new ServiceError('svc.brand.not_found', {
          detail: { en: `There is no file in the ${slot} slot.`, es: `No hay ningún archivo en la posición ${slot}.` },
        });
      }
      await this.#touch(trx, workspaceId, projectId);
      return this.#render(trx, workspaceId, projectId, origin);
    });
  }

  /** Merges a partial navbar and footer: absent fields stay, link lists and the CTA are replaced whole. */
  async update(workspaceId: string, projectId: string, patch: BrandPatch, origin: string): Promise<Brand> {
    return this.deps.db.transaction().execute(async (trx) => {
      await this.deps.projects.lockProjectOrThrow(trx, workspaceId, projectId);
      const current = await this.getBrand(workspaceId, projectId, origin, trx);
      if (patch.navbar === undefined && patch.footer === undefined) return current;
      const navbar: Navbar = {
        links: patch.navbar?.links ?? current.navbar.links,
        cta: patch.navbar?.cta === undefined ? current.navbar.cta : patch.navbar.cta,
      };
      const footer: Footer = {
        text: { es: patch.footer?.text?.es ?? current.footer.text.es, en: patch.footer?.text?.en ?? current.footer.text.en },
        links: patch.footer?.links ?? current.footer.links,
      };
      await this.#touch(trx, workspaceId, projectId, { navbar: JSON.stringify(navbar), footer: JSON.stringify(footer) });
      return this.#render(trx, workspaceId, projectId, origin);
    });
  }

  /** Drops a site's brand with the site (a project dependent's cascade). */
  async removeProject(trx: Transaction<Database>, workspaceId: string, projectId: string): Promise<void> {
    await trx.deleteFrom('brand_files').where('workspace_id', '=', workspaceId).where('project_id', '=', projectId).execute();
    await trx.deleteFrom('brands').where('workspace_id', '=', workspaceId).where('project_id', '=', projectId).execute();
  }

  /** The content types a brand file can have (what `GET /files/{assetId}` may answer for one). */
  readonly fileTypes: readonly string[] = [...new Set(Object.values(SLOT_TYPES).flat())];

  /** A brand file's bytes by id, for `GET /files/{assetId}` (the signature was checked). */
  async getStoredFile(fileId: string): Promise<StoredFile | undefined> {
    const row = await this.deps.db.selectFrom('brand_files').select(STORED_FILE_COLUMNS).where('id', '=', fileId).executeTakeFirst();
    return row && storedFile(row, 'brand_files');
  }
}
