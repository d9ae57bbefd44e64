import type { CoreTables } from './core.js';

/**
 * The whole store. Each part of the API declares its tables in its own file of this
 * folder, adds them to `Database`, and lists them in `TABLES`.
 *
 * Rule: every table but `meta` and `workspaces` has a `workspace_id` column, so that a
 * workspace can be dropped and exported without knowing the table.
 */
export interface Database extends CoreTables {}

/**
 * Every table, in the order a state import writes them. Derived search structures
 * (full-text indexes) are not listed: their owner rebuilds them after an import.
 */
export const TABLES = [
  'meta',
  'workspaces',
  'api_keys',
  'idempotency',
  'activity',
  'jobs',
  'agents',
] as const satisfies readonly (keyof Database)[];

/** Tables whose rows belong to one workspace through `workspace_id`. */
export const WORKSPACE_TABLES: readonly (keyof Database)[] = TABLES.filter(
  (t) => t !== 'meta' && t !== 'workspaces',
);
