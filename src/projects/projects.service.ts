import type { Transaction } from 'kysely';
import type { CoreDeps } from '../core.js';
import { countWorkspaceRows } from '../db/count.js';
import { lockProjectRow } from '../db/row-locks.js';
import type { Database, Db } from '../db/schema/index.js';
import type { ProjectTable } from '../db/schema/projects.js';
import { paginate, type ListPage, type ListParams } from '../platform/pagination.js';
import { ServiceError } from '../platform/service-error.js';
import { storedJson } from '../platform/stored.js';
import { iso } from '../platform/time.js';
import { renderLlmsTxt, type LlmsEntry } from './llms-txt.js';
import type { Language } from '../text/language.js';
import {
  StoredAnalyticsSchema,
  StoredLocalesSchema,
  StoredRobotsSchema,
  StoredSitemapSchema,
  type Analytics,
  type Project,
  type ProjectCreate,
  type ProjectPatch,
  type Robots,
} from './projects.schema.js';
import { TRANSLATE_JOB, type TranslateJobPayload } from './translate-job.js';
import { RESERVED_SLUGS, deriveSlug, slugCandidates } from './slug.js';

/** A project found by its public address, with the workspace that owns it. */
export interface SiteLookup {
  workspaceId: string;
  project: Project;
}

/**
 * What other parts hang on a project: records deleted with it (pages, theme) and the
 * published pages llms.txt lists.
 */
export interface ProjectDependent {
  cascade?(trx: Transaction<Database>, workspaceId: string, projectId: string): Promise<{ pagesDeleted?: number }>;
  llmsEntries?(trx: Transaction<Database>, workspaceId: string, projectId: string): Promise<LlmsEntry[]>;
}

export const DEFAULT_ROBOTS: Robots = { indexable: true, aiSearch: true, aiTraining: false, disallow: [], raw: '' };
export const DEFAULT_ANALYTICS: Analytics = { clarityId: '', gtmId: '', metaPixelId: '', posthogKey: '' };

function toProject(row: ProjectTable): Project {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    locales: storedJson(StoredLocalesSchema, row.locales, { table: 'projects', row: row.id, column: 'locales' }),
    defaultLocale: row.default_locale as Language,
    robots: storedJson(StoredRobotsSchema, row.robots, { table: 'projects', row: row.id, column: 'robots' }),
    analytics: storedJson(StoredAnalyticsSchema, row.analytics, { table: 'projects', row: row.id, column: 'analytics' }),
    sitemap: storedJson(StoredSitemapSchema, row.sitemap, { table: 'projects', row: row.id, column: 'sitemap' }),
    llmsTxt: { text: row.llms_text, generatedAt: row.llms_generated_at },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function reserved(slug: string): ServiceError {
  return new ServiceError('svc.project.slug_reserved', {
    detail: { en: `The address "${slug}" is reserved by the platform.`, es: `La dirección "${slug}" está reservada por la plataforma.` },
    errors: [{ field: 'slug', reason: 'reserved' }],
  });
}

/** Projects (sites): their global addresses, languages, robots, analytics and sitemap settings. */
export class ProjectsService {
  readonly #dependents: ProjectDependent[] = [];

  constructor(private readonly deps: CoreDeps) {}

  addDependent(dependent: ProjectDependent): void {
    this.#dependents.push(dependent);
  }

  /** How many projects the workspace has (the `projects` plan cap and usage). */
  count(workspaceId: string, db: Db = this.deps.db): Promise<number> {
    return countWorkspaceRows(db, 'projects', workspaceId);
  }

  async create(workspaceId: string, input: ProjectCreate): Promise<Project> {
    const slug = input.slug ?? deriveSlug(input.name);
    if (!slug) {
      throw new ServiceError('svc.project.invalid', {
        errors: [{ field: 'slug', reason: 'required: the name has no letters or digits to derive one from' }],
      });
    }
    const locales = input.locales ?? ['en'];
    const defaultLocale = input.defaultLocale ?? locales[0]!;
    if (!locales.includes(defaultLocale))
      throw new ServiceError('svc.project.invalid', { errors: [{ field: 'defaultLocale', reason: 'must be one of locales' }] });
    if (RESERVED_SLUGS.has(slug)) throw reserved(slug);
    return this.deps.db.transaction().execute(async (trx) => {
      await this.deps.assertCapacity(trx, workspaceId, 'projects', () => this.count(workspaceId, trx));
      const id = this.deps.ids.next('prj');
      await this.#claimSlug(trx, workspaceId, id, slug);
      const now = iso(this.deps.clock.now());
      const row: ProjectTable = {
        id,
        workspace_id: workspaceId,
        name: input.name,
        slug,
        locales: JSON.stringify(locales),
        default_locale: defaultLocale,
        robots: JSON.stringify(DEFAULT_ROBOTS),
        analytics: JSON.stringify(DEFAULT_ANALYTICS),
        sitemap: JSON.stringify({ extraUrls: [] }),
        llms_text: renderLlmsTxt({ name: input.name, locales, defaultLocale }, []),
        llms_generated_at: now,
        created_at: now,
        updated_at: now,
      };
      await trx.insertInto('projects').values(row).execute();
      return toProject(row);
    });
  }

  async list(workspaceId: string, page: ListParams): Promise<ListPage<Project>> {
    const query = this.deps.db.selectFrom('projects').selectAll().where('workspace_id', '=', workspaceId);
    return paginate(this.deps.cursors, `${workspaceId}:projects`, page, query, toProject);
  }

  async getProject(workspaceId: string, projectId: string, db: Db = this.deps.db): Promise<Project | undefined> {
    const row = await db.selectFrom('projects').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', projectId).executeTakeFirst();
    return row && toProject(row);
  }

  async getProjectOrThrow(workspaceId: string, projectId: string, db: Db = this.deps.db): Promise<Project> {
    const project = await this.getProject(workspaceId, projectId, db);
    if (!project) throw new ServiceError('svc.project.not_found');
    return project;
  }

  /**
   * The site, its row locked for the rest of `trx` (undefined when there is none): what
   * every writer of a site's rows calls before touching any of them (D-1131).
   */
  async lockProject(trx: Transaction<Database>, workspaceId: string, projectId: string): Promise<Project | undefined> {
    return (await lockProjectRow(trx, workspaceId, projectId)) ? this.getProject(workspaceId, projectId, trx) : undefined;
  }

  /** `lockProject`, or `404 svc.project.not_found`. */
  async lockProjectOrThrow(trx: Transaction<Database>, workspaceId: string, projectId: string): Promise<Project> {
    const project = await this.lockProject(trx, workspaceId, projectId);
    if (!project) throw new ServiceError('svc.project.not_found');
    return project;
  }

  /**
   * The project at a public address, whatever its workspace (hosted sites). Only the
   * address in force answers; a retired slug finds nothing.
   */
  async getBySlug(slug: string, db: Db = this.deps.db): Promise<SiteLookup | undefined> {
    const row = await db
      .selectFrom('project_slugs')
      .innerJoin('projects', 'projects.id', 'project_slugs.project_id')
      .selectAll('projects')
      .where('project_slugs.slug', '=', slug.toLowerCase())
      .where('project_slugs.state', '=', 'active')
      .executeTakeFirst();
    return row && { workspaceId: row.workspace_id, project: toProject(row) };
  }

  async update(workspaceId: string, projectId: string, patch: ProjectPatch): Promise<Project> {
    let queued = false;
    const project = await this.deps.db.transaction().execute(async (trx) => {
      const current = await this.lockProjectOrThrow(trx, workspaceId, projectId);
      const locales = patch.locales ?? current.locales;
      const defaultLocale = patch.defaultLocale ?? current.defaultLocale;
      if (!locales.includes(defaultLocale)) {
        throw new ServiceError('svc.project.invalid', { errors: [{ field: 'defaultLocale', reason: 'must be one of locales' }] });
      }
      await trx
        .updateTable('projects')
        .set({
          name: patch.name ?? current.name,
          locales: JSON.stringify(locales),
          default_locale: defaultLocale,
          robots: JSON.stringify({ ...current.robots, ...patch.robots }),
          analytics: JSON.stringify({ ...current.analytics, ...patch.analytics }),
          sitemap: JSON.stringify({ ...current.sitemap, ...patch.sitemap }),
          updated_at: iso(this.deps.clock.now()),
        })
        .where('id', '=', projectId)
        .execute();
      // A language the site did not serve gets the texts the owner has not written in it.
      for (const locale of locales.filter((l) => !current.locales.includes(l))) {
        const payload: TranslateJobPayload = { projectId, locale };
        await this.deps.jobs.enqueue(trx, { workspaceId, kind: TRANSLATE_JOB, payload });
        queued = true;
      }
      const listed = patch.name !== undefined || patch.locales !== undefined || patch.defaultLocale !== undefined;
      if (listed) await this.regenerateLlmsTxt(trx, workspaceId, projectId);
      return this.getProjectOrThrow(workspaceId, projectId, trx);
    });
    if (queued) this.deps.jobs.kick();
    return project;
  }

  /**
   * Moves the project to a new address. The old slug is retired: it stays refused to
   * everyone else, and only this workspace may take it again.
   */
  async changeAddress(workspaceId: string, projectId: string, slug: string): Promise<Project> {
    return this.deps.db.transaction().execute(async (trx) => {
      const current = await this.lockProjectOrThrow(trx, workspaceId, projectId);
      if (current.slug === slug) return current;
      if (RESERVED_SLUGS.has(slug)) throw reserved(slug);
      await this.#claimSlug(trx, workspaceId, projectId, slug);
      const now = iso(this.deps.clock.now());
      await trx
        .updateTable('project_slugs')
        .set({ state: 'retired', updated_at: now })
        .where('slug', '=', current.slug)
        .where('project_id', '=', projectId)
        .execute();
      await trx.updateTable('projects').set({ slug, updated_at: now }).where('id', '=', projectId).execute();
      return this.getProjectOrThrow(workspaceId, projectId, trx);
    });
  }

  /** Deletes the site, its pages and theme, and frees its addresses (retired ones too). */
  async delete(workspaceId: string, projectId: string): Promise<{ projectId: string; pagesDeleted: number }> {
    return this.deps.db.transaction().execute(async (trx) => {
      await this.lockProjectOrThrow(trx, workspaceId, projectId);
      let pagesDeleted = 0;
      for (const d of this.#dependents) if (d.cascade) pagesDeleted += (await d.cascade(trx, workspaceId, projectId)).pagesDeleted ?? 0;
      await trx.deleteFrom('project_slugs').where('project_id', '=', projectId).execute();
      await trx.deleteFrom('projects').where('id', '=', projectId).execute();
      return { projectId, pagesDeleted };
    });
  }

  /** Rewrites llms.txt from the published pages; call inside the transaction that changed them. */
  async regenerateLlmsTxt(trx: Transaction<Database>, workspaceId: string, projectId: string): Promise<void> {
    const project = await this.getProject(workspaceId, projectId, trx);
    if (!project) return;
    const entries: LlmsEntry[] = [];
    for (const d of this.#dependents) if (d.llmsEntries) entries.push(...(await d.llmsEntries(trx, workspaceId, projectId)));
    await trx
      .updateTable('projects')
      .set({ llms_text: renderLlmsTxt(project, entries), llms_generated_at: iso(this.deps.clock.now()) })
      .where('id', '=', projectId)
      .execute();
  }

  /**
   * Takes `slug` for the project: a free slug, or one this workspace retired. The
   * primary key decides between racing workspaces; the loser gets `slug_taken`.
   */
  async #claimSlug(trx: Transaction<Database>, workspaceId: string, projectId: string, slug: string): Promise<void> {
    const now = iso(this.deps.clock.now());
    const claimed = await trx
      .insertInto('project_slugs')
      .values({ slug, workspace_id: workspaceId, project_id: projectId, state: 'active', updated_at: now })
      .onConflict((oc) =>
        oc
          .column('slug')
          .doUpdateSet({ project_id: projectId, state: 'active', updated_at: now })
          .where('project_slugs.workspace_id', '=', workspaceId)
          .where('project_slugs.state', '=', 'retired'),
      )
      .returning('slug')
      .executeTakeFirst();
    if (claimed) return;
    const suggestion = await this.#suggest(trx, slug);
    throw new ServiceError('svc.project.slug_taken', {
      detail: {
        en: `The address "${slug}" is taken; "${suggestion}" is available.`,
        es: `La dirección "${slug}" está ocupada; "${suggestion}" está disponible.`,
      },
      errors: [{ field: 'slug', reason: 'taken', suggestion }],
    });
  }

  async #suggest(db: Db, slug: string): Promise<string> {
    for (let from = 2; ; from += 20) {
      const candidates = slugCandidates(slug, from, 20);
      const rows = await db.selectFrom('project_slugs').select('slug').where('slug', 'in', candidates).execute();
      const held = new Set(rows.map((r) => r.slug));
      const free = candidates.find((c) => !held.has(c));
      if (free) return free;
    }
  }
}
