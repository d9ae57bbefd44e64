import type { Kysely } from 'kysely';
import type { Database } from './schema/index.js';

/**
 * Locks the rows of these workspaces for the rest of `trx`, one at a time in id order.
 * On a store processes share (PostgreSQL, read committed) a writer that will lock a
 * workspace's row takes it before any row of that workspace: a workspace deletion does
 * so too, so the two wait for each other instead of each holding what the other needs
 * (D-1127). An update that changes nothing is the lock every dialect has (SQLite runs
 * one writer anyway).
 */
export async function lockWorkspaceRows(trx: Kysely<Database>, workspaceIds: Iterable<string>): Promise<void> {
  for (const id of [...new Set(workspaceIds)].sort()) await lockWorkspaceRow(trx, id);
}

/** `lockWorkspaceRows` for one workspace, answering whether it is there (D-1140). */
export async function lockWorkspaceRow(trx: Kysely<Database>, workspaceId: string): Promise<boolean> {
  const result = await trx
    .updateTable('workspaces')
    .set((eb) => ({ id: eb.ref('id') }))
    .where('id', '=', workspaceId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Locks a site's row for the rest of `trx` (D-1131): every writer of the site's rows (its
 * pages, addresses, theme, brand, llms.txt) takes it before any of them, as the site's
 * deletion and its workspace's (which deletes sites before pages) do. Two writers of one
 * site then wait for each other on a store processes share, instead of each holding a
 * page the other needs; and one that waited on a deletion finds the site gone rather
 * than writing a page or a theme that outlives it. Answers whether the site is there.
 */
export async function lockProjectRow(trx: Kysely<Database>, workspaceId: string, projectId: string): Promise<boolean> {
  const result = await trx
    .updateTable('projects')
    .set((eb) => ({ id: eb.ref('id') }))
    .where('id', '=', projectId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Locks an agent's row for the rest of `trx`, and says whether the agent still exists.
 * Whatever writes a row that names the agent takes it first (D-1132): a write of its
 * stored scope index (D-603), a chat turn's record, a source added for it, a page set to
 * answer with it. The agent's deletion deletes the row before its cascades, so such a
 * write in another process, or one whose turn waited on a model meanwhile, either commits
 * before the cascades or finds the agent gone, instead of leaving a row that names no
 * agent (which a state import refuses).
 */
export async function lockAgentRow(trx: Kysely<Database>, workspaceId: string, agentId: string): Promise<boolean> {
  const locked = await trx
    .updateTable('agents')
    .set((eb) => ({ id: eb.ref('id') }))
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', agentId)
    .executeTakeFirst();
  return Number(locked.numUpdatedRows) > 0;
}
