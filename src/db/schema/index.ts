import type { Kysely, Transaction } from 'kysely';
import type { CoreTables } from './core.js';
import type { KnowledgeTables } from './knowledge.js';
import type { ProjectTables } from './projects.js';
import type { PageTables } from './pages.js';
import type { ThemeTables } from './theme.js';
import type { AssetTables } from './assets.js';
import type { BrandTables } from './brand.js';
import type { AgentChatTables } from './agents.js';
import type { SharedTables } from './shared.js';

/**
 * The whole store. Each part of the API declares its tables in its own file of this
 * folder, adds them to `Database`, and lists them in `TABLES`.
 *
 * Rule: every table outside `GLOBAL_TABLES` has a `workspace_id` column, so that a
 * workspace can be dropped and exported without knowing the table.
 */
export interface Database extends CoreTables, KnowledgeTables, ProjectTables, PageTables, ThemeTables, AssetTables, BrandTables, AgentChatTables, SharedTables {}

/** The store, or a transaction on it: what a method that may run inside one takes. */
export type Db = Kysely<Database> | Transaction<Database>;

/**
 * Every table, in the order a state import writes them. Derived search structures
 * (full-text indexes) are not listed: their owner rebuilds them after an import; nor
 * are the tables processes sharing a store keep their bookkeeping in (`shared.ts`).
 */
export const TABLES = [
  'meta',
  'workspaces',
  'api_keys',
  'idempotency',
  'activity',
  'jobs',
  'agents',
  'conversations',
  'chat_messages',
  'knowledge_sources',
  'knowledge_inputs',
  'knowledge_chunks',
  'knowledge_terms',
  'knowledge_scope_indexes',
  'knowledge_lexicons',
  // projects, pages, theme
  'projects',
  'project_slugs',
  'pages',
  'themes',
  // assets, brand
  'assets',
  'brands',
  'brand_files',
] as const satisfies readonly (keyof Database)[];

/** Tables that belong to no workspace (emulator bookkeeping and configuration). */
export const GLOBAL_TABLES: ReadonlySet<string> = new Set(['meta', 'workspaces']);

/** Tables whose rows belong to one workspace through `workspace_id`. */
export const WORKSPACE_TABLES: readonly (keyof Database)[] = TABLES.filter((t) => !GLOBAL_TABLES.has(t));
