import type { Transaction } from 'kysely';
import type { Database, Db } from '../db/schema/index.js';
import type { Language } from '../text/language.js';

/** What pages read of their site. */
export interface SiteLanguages {
  locales: Language[];
  defaultLocale: Language;
}

/** What pages need of projects (the projects part implements it). */
export interface ProjectAccess {
  getProject(workspaceId: string, projectId: string, db?: Db): Promise<SiteLanguages | undefined>;
  /** The site, or `404 svc.project.not_found`. */
  getProjectOrThrow(workspaceId: string, projectId: string, db?: Db): Promise<SiteLanguages>;
  /** The site, its row locked for the rest of `trx` (taken before any page, D-1131), or undefined. */
  lockProject(trx: Transaction<Database>, workspaceId: string, projectId: string): Promise<SiteLanguages | undefined>;
  /** `lockProject`, or `404 svc.project.not_found`. */
  lockProjectOrThrow(trx: Transaction<Database>, workspaceId: string, projectId: string): Promise<SiteLanguages>;
  /** Rewrites the site's llms.txt; call inside the transaction that changed its published pages. */
  regenerateLlmsTxt(trx: Transaction<Database>, workspaceId: string, projectId: string): Promise<void>;
}
