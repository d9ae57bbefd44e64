import type { Transaction } from 'kysely';
import type { CoreDeps } from '../core.js';
import { countWorkspaceRows } from '../db/count.js';
import { lockAgentRow, lockWorkspaceRows } from '../db/row-locks.js';
import type { Database, Db } from '../db/schema/index.js';
import type { PageTable } from '../db/schema/pages.js';
import { paginate, type ListPage, type ListParams } from '../platform/pagination.js';
import { ServiceError, fieldError, type FieldError } from '../platform/service-error.js';
import { storedJson } from '../platform/stored.js';
import { iso } from '../platform/time.js';
import type { LlmsEntry } from '../projects/llms-txt.js';
import { TRANSLATE_JOB, type TranslateJobPayload } from '../projects/translate-job.js';
import type { Language } from '../text/language.js';
import { isReservedPath, normalizePagePath } from './page-path.js';
import { emptyTexts, mergeTexts, type LangText } from './page-texts.js';
import {
  StoredBodySchema,
  StoredEditorialSchema,
  StoredMachineTextsSchema,
  StoredPageSitemapSchema,
  StoredSeoSchema,
  type Page,
  type PageCreate,
  type PagePatch,
  type PageSitemap,
} from './pages.schema.js';
import type { ProjectAccess, SiteLanguages } from './ports.js';
import { runTranslation } from './translation.js';
import type { Translator } from './translator.js';

export const DEFAULT_PAGE_SITEMAP: PageSitemap = { priority: 0.5, changefreq: 'weekly', sitemapExclude: false };

function toPage(row: PageTable): Page {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as Page['kind'],
    path: row.path,
    status: row.status as Page['status'],
    defaultLocale: row.default_locale as Language,
    editorial: storedJson(StoredEditorialSchema, row.editorial, { table: 'pages', row: row.id, column: 'editorial' }),
    seo: storedJson(StoredSeoSchema, row.seo, { table: 'pages', row: row.id, column: 'seo' }),
    sitemap: storedJson(StoredPageSitemapSchema, row.sitemap, { table: 'pages', row: row.id, column: 'sitemap' }),
    body: storedJson(StoredBodySchema, row.body, { table: 'pages', row: row.id, column: 'body' }),
    ...(row.agent_id !== null && { agentId: row.agent_id }),
    projectId: row.project_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    publishedAt: row.published_at,
  };
}

const invalid = (field: string, reason: string) => fieldError('svc.page.invalid', field, reason);

function pathReserved(path: string): ServiceError {
  return new ServiceError('svc.page.path_reserved', { errors: [{ field: 'path', reason: `the platform reserves /${path.split('/')[1]} and its subtree` }] });
}

function pathTaken(path: string): ServiceError {
  return new ServiceError('svc.page.path_taken', { errors: [{ field: 'path', reason: `another page of this site has ${path}` }] });
}

/** Which fields a kind of page refuses (CONTRACT, Pages). */
function assertKindFields(kind: Page['kind'], input: { body?: unknown; editorial?: unknown; agentId?: unknown }): void {
  if (kind === 'agent' && input.body !== undefined) throw invalid('body', 'only document pages have a body');
  if (kind === 'document' && input.editorial !== undefined) throw invalid('editorial', 'only agent pages have editorial texts');
  if (kind === 'document' && input.agentId !== undefined) throw invalid('agentId', 'only agent pages have an agent');
}

/**
 * Pages of a site: their paths, texts in both languages, publication, the root-page
 * rule, the agent they answer with, and the translation of a newly served language.
 */
export class PagesService {
  constructor(private readonly deps: CoreDeps & { projects: ProjectAccess; translator: Translator }) {
    deps.jobs.register<TranslateJobPayload>(TRANSLATE_JOB, (job) => runTranslation(deps, job));
  }

  /** Deletes a site's pages, in the project's deleting transaction. */
  async deleteForProject(trx: Transaction<Database>, workspaceId: string, projectId: string): Promise<{ pagesDeleted: number }> {
    const res = await trx.deleteFrom('pages').where('workspace_id', '=', workspaceId).where('project_id', '=', projectId).executeTakeFirst();
    return { pagesDeleted: Number(res.numDeletedRows) };
  }

  /** The pages that answer with an agent: each blocks the agent's deletion. */
  async agentBlockers(trx: Transaction<Database>, workspaceId: string, agentId: string): Promise<FieldError[]> {
    const rows = await trx.selectFrom('pages').select('id').where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId).orderBy('id').execute();
    return rows.map((r) => ({ field: `pages.${r.id}`, reason: 'this page answers with the agent' }));
  }

  /** How many pages the workspace has, on every site (the `pages` plan cap and usage). */
  count(workspaceId: string, db: Db = this.deps.db): Promise<number> {
    return countWorkspaceRows(db, 'pages', workspaceId);
  }

  async create(workspaceId: string, projectId: string, input: PageCreate): Promise<Page> {
    assertKindFields(input.kind, input);
    if (input.kind === 'agent' && input.agentId === undefined) throw invalid('agentId', 'required on an agent page');
    return this.deps.db.transaction().execute(async (trx) => {
      // The workspace's row before the site's, as the workspace's deletion takes them (D-1140):
      // the cap's check below locks it, and taken after the site's it could deadlock with that deletion.
      await lockWorkspaceRows(trx, [workspaceId]);
      const project = await this.deps.projects.lockProjectOrThrow(trx, workspaceId, projectId);
      const defaultLocale = input.defaultLocale ?? project.defaultLocale;
      if (!project.locales.includes(defaultLocale)) throw invalid('defaultLocale', 'must be a locale the site serves');
      if (input.agentId !== undefined) await this.#assertAgent(trx, workspaceId, input.agentId);
      if (isReservedPath(input.path)) throw pathReserved(input.path);
      await this.deps.assertCapacity(trx, workspaceId, 'pages', () => this.count(workspaceId, trx));
      const { texts } = mergeTexts(emptyTexts(), input);
      const now = iso(this.deps.clock.now());
      const row: PageTable = {
        id: this.deps.ids.next('pg'),
        workspace_id: workspaceId,
        project_id: projectId,
        name: input.name,
        kind: input.kind,
        path: input.path,
        status: 'draft',
        default_locale: defaultLocale,
        editorial: JSON.stringify(texts.editorial),
        seo: JSON.stringify(texts.seo),
        sitemap: JSON.stringify({ ...DEFAULT_PAGE_SITEMAP, ...input.sitemap }),
        body: JSON.stringify(texts.body),
        agent_id: input.agentId ?? null,
        machine_texts: '[]',
        created_at: now,
        updated_at: now,
        published_at: null,
      };
      // The unique (project, path) constraint settles two requests racing for one path.
      const inserted = await trx
        .insertInto('pages')
        .values(row)
        .onConflict((oc) => oc.columns(['project_id', 'path']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!inserted) throw pathTaken(input.path);
      return toPage(row);
    });
  }

  /** The site's pages, newest first; `status` narrows the list. */
  async list(workspaceId: string, projectId: string, params: ListParams & { status?: Page['status'] | undefined }): Promise<ListPage<Page>> {
    await this.deps.projects.getProjectOrThrow(workspaceId, projectId);
    let query = this.deps.db.selectFrom('pages').selectAll().where('workspace_id', '=', workspaceId).where('project_id', '=', projectId);
    if (params.status) query = query.where('status', '=', params.status);
    return paginate(this.deps.cursors, `${workspaceId}:pages:${projectId}:${params.status ?? ''}`, params, query, toPage);
  }

  /**
   * The workspace's pages of every project, newest first, at most `limit` (the console's
   * overview): one seek of `pages_workspace_newest`, however many projects it has.
   */
  async listNewest(workspaceId: string, limit: number): Promise<{ data: Page[]; hasMore: boolean }> {
    const rows = await this.deps.db
      .selectFrom('pages')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
    return { data: rows.slice(0, limit).map(toPage), hasMore: rows.length > limit };
  }

  async getPage(workspaceId: string, pageId: string, db: Db = this.deps.db): Promise<Page | undefined> {
    const row = await db.selectFrom('pages').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', pageId).executeTakeFirst();
    return row && toPage(row);
  }

  async getPageOrThrow(workspaceId: string, pageId: string, db: Db = this.deps.db): Promise<Page> {
    const page = await this.getPage(workspaceId, pageId, db);
    if (!page) throw new ServiceError('svc.page.not_found');
    return page;
  }

  /** The published page at `path` of a site (hosted sites); the path is case-folded. */
  async getPublishedByPath(projectId: string, path: string, db: Db = this.deps.db): Promise<Page | undefined> {
    const normalized = normalizePagePath(path);
    if (!('path' in normalized)) return undefined;
    const row = await db
      .selectFrom('pages')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('path', '=', normalized.path)
      .where('status', '=', 'published')
      .executeTakeFirst();
    return row && toPage(row);
  }

  /** Whether any page of a site is published: a site with none is no site to its visitors (hosted sites). */
  async hasPublished(projectId: string, db: Db = this.deps.db): Promise<boolean> {
    const row = await db.selectFrom('pages').select('id').where('project_id', '=', projectId).where('status', '=', 'published').limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /** Every published page of a site, by path (hosted sites: sitemap, navigation). */
  async listPublished(projectId: string, db: Db = this.deps.db): Promise<Page[]> {
    const rows = await db.selectFrom('pages').selectAll().where('project_id', '=', projectId).where('status', '=', 'published').orderBy('path').execute();
    return rows.map(toPage);
  }

  async update(workspaceId: string, pageId: string, patch: PagePatch): Promise<Page> {
    let queued = false;
    const page = await this.deps.db.transaction().execute(async (trx) => {
      const { row, project } = await this.#lockedRowOrThrow(trx, workspaceId, pageId);
      const current = toPage(row);
      assertKindFields(current.kind, patch);
      if (patch.defaultLocale !== undefined && !project.locales.includes(patch.defaultLocale)) {
        throw invalid('defaultLocale', 'must be a locale the site serves');
      }
      const defaultLocale = patch.defaultLocale ?? current.defaultLocale;
      if (patch.body?.[defaultLocale] === '') throw invalid(`body.${defaultLocale}`, 'the source language cannot be emptied');
      if (patch.agentId !== undefined) await this.#assertAgent(trx, workspaceId, patch.agentId);
      if (patch.path !== undefined && patch.path !== current.path) {
        if (isReservedPath(patch.path)) throw pathReserved(patch.path);
        if (current.path === '/') await this.#assertRootMayGo(trx, current);
        const holder = await trx.selectFrom('pages').select('id').where('project_id', '=', current.projectId).where('path', '=', patch.path).executeTakeFirst();
        if (holder) throw pathTaken(patch.path);
      }
      const { texts, written } = mergeTexts(current, patch);
      const machine = storedJson(StoredMachineTextsSchema, row.machine_texts, { table: 'pages', row: row.id, column: 'machine_texts' }).filter(
        (key) => !written.includes(key),
      );
      await trx
        .updateTable('pages')
        .set({
          name: patch.name ?? current.name,
          path: patch.path ?? current.path,
          default_locale: defaultLocale,
          agent_id: patch.agentId ?? row.agent_id,
          editorial: JSON.stringify(texts.editorial),
          seo: JSON.stringify(texts.seo),
          body: JSON.stringify(texts.body),
          sitemap: JSON.stringify({ ...current.sitemap, ...patch.sitemap }),
          machine_texts: JSON.stringify(machine),
          updated_at: iso(this.deps.clock.now()),
        })
        .where('id', '=', pageId)
        .execute();
      if (current.status === 'published') await this.deps.projects.regenerateLlmsTxt(trx, workspaceId, current.projectId);
      // A new source language is generated from the texts already written in the other.
      if (defaultLocale !== current.defaultLocale) {
        const payload: TranslateJobPayload = { projectId: current.projectId, locale: defaultLocale, pageId };
        await this.deps.jobs.enqueue(trx, { workspaceId, kind: TRANSLATE_JOB, payload });
        queued = true;
      }
      return this.getPageOrThrow(workspaceId, pageId, trx);
    });
    if (queued) this.deps.jobs.kick();
    return page;
  }

  async delete(workspaceId: string, pageId: string): Promise<{ pageId: string; deleted: true }> {
    return this.deps.db.transaction().execute(async (trx) => {
      const page = toPage((await this.#lockedRowOrThrow(trx, workspaceId, pageId)).row);
      if (page.path === '/') await this.#assertRootMayGo(trx, page);
      await trx.deleteFrom('pages').where('id', '=', pageId).execute();
      if (page.status === 'published') await this.deps.projects.regenerateLlmsTxt(trx, workspaceId, page.projectId);
      return { pageId, deleted: true as const };
    });
  }

  /** Puts a draft live; publishing a live page changes nothing. */
  async publish(workspaceId: string, pageId: string): Promise<Page> {
    return this.#setStatus(workspaceId, pageId, 'published');
  }

  /** Takes a live page down; the `/` page stays while other pages of the site are live. */
  async unpublish(workspaceId: string, pageId: string): Promise<Page> {
    return this.#setStatus(workspaceId, pageId, 'draft');
  }

  async #setStatus(workspaceId: string, pageId: string, status: Page['status']): Promise<Page> {
    return this.deps.db.transaction().execute(async (trx) => {
      const page = toPage((await this.#lockedRowOrThrow(trx, workspaceId, pageId)).row);
      if (page.status === status) return page;
      if (status === 'draft' && page.path === '/') await this.#assertRootMayGo(trx, page);
      const now = iso(this.deps.clock.now());
      await trx
        .updateTable('pages')
        .set({ status, published_at: status === 'published' ? now : null, updated_at: now })
        .where('id', '=', pageId)
        .execute();
      await this.deps.projects.regenerateLlmsTxt(trx, workspaceId, page.projectId);
      return this.getPageOrThrow(workspaceId, pageId, trx);
    });
  }

  /**
   * The page's row for a writer: its site's row locked first (D-1131), then the page read
   * as it is once that lock is held. A page whose site another process is deleting is
   * `404` once the deletion commits, never written after it.
   */
  async #lockedRowOrThrow(trx: Transaction<Database>, workspaceId: string, pageId: string): Promise<{ row: PageTable; project: SiteLanguages }> {
    const site = await trx.selectFrom('pages').select('project_id').where('workspace_id', '=', workspaceId).where('id', '=', pageId).executeTakeFirst();
    // A site deleted meanwhile took its pages with it.
    const project = site && (await this.deps.projects.lockProject(trx, workspaceId, site.project_id));
    if (!project) throw new ServiceError('svc.page.not_found');
    return { row: await this.#rowOrThrow(trx, workspaceId, pageId), project };
  }

  async #rowOrThrow(trx: Transaction<Database>, workspaceId: string, pageId: string): Promise<PageTable> {
    const row = await trx.selectFrom('pages').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', pageId).executeTakeFirst();
    if (!row) throw new ServiceError('svc.page.not_found');
    return row;
  }

  async #assertAgent(trx: Transaction<Database>, workspaceId: string, agentId: string): Promise<void> {
    // Locked, not only read (D-1132): an agent deleted meanwhile in another process is
    // either gone here or waits for this page, which then blocks its deletion.
    if (!(await lockAgentRow(trx, workspaceId, agentId))) throw invalid('agentId', 'no such agent in this workspace');
  }

  /** The `/` page may not be unpublished, moved or deleted while another page of its site is live. */
  async #assertRootMayGo(trx: Transaction<Database>, root: Page): Promise<void> {
    const live = await trx
      .selectFrom('pages')
      .select('id')
      .where('project_id', '=', root.projectId)
      .where('status', '=', 'published')
      .where('id', '!=', root.id)
      .limit(1)
      .executeTakeFirst();
    if (live) throw new ServiceError('svc.page.root_required', { errors: [{ field: 'path', reason: `page ${live.id} of this site is live` }] });
  }

  /** What llms.txt lists of a site: its published pages. */
  async llmsEntries(trx: Transaction<Database>, projectId: string): Promise<LlmsEntry[]> {
    const either = (a: LangText, b: LangText): LangText => ({ es: a.es || b.es, en: a.en || b.en });
    return (await this.listPublished(projectId, trx)).map((p) => ({
      path: p.path,
      name: p.name,
      title: either(p.seo.title, p.editorial.title),
      description: either(p.seo.description, p.editorial.description),
      defaultLocale: p.defaultLocale,
    }));
  }
}
