import type { Kysely } from 'kysely';
import type { Database } from './schema/index.js';

/**
 * Locks the rows of these workspaces for the rest of `trx`, one at a time in id order.
 * On a store processes share (PostgreSQL, read committed) a writer that will lock a
 * workspace's row takes it before any row of that workspace: a workspace deletion does so too, so the two wait for each other instead of each
 * holding what the other needs (D-1127). An update that changes nothing is the lock
 * every dialect has (SQLite runs one writer anyway).
 */
export async function lockWorkspaceRows(trx: Kysely<Database>, workspaceIds: Iterable<string>): Promise<void> {
  for (const id of [...new Set(workspaceIds)].sort()) {
    await trx
      .updateTable('workspaces')
      .set((eb) => ({ id: eb.ref('id') }))
      .where('id', '=', id)
      .execute();
  }
}
