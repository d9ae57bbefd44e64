import type { Kysely } from 'kysely';
import type { Database } from './schema/index.js';

/**
 * Locks the rows of these workspaces for the rest of `trx`, one at a time in id order,
 * and answers how many exist. On a store processes share (PostgreSQL, read committed) a
 * writer that will lock a workspace's row takes it before any row of that workspace:
 * a workspace deletion does so too, so the two wait for each other instead of each
 * holding what the other needs (D-1127). An update that changes nothing is the lock
 * every dialect has (SQLite runs one writer anyway).
 */
export async function lockWorkspaceRows(trx: Kysely<Database>, workspaceIds: Iterable<string>): Promise<number> {
  let found = 0;
  for (const id of [...new Set(workspaceIds)].sort()) {
    const locked = await trx
      .updateTable('workspaces')
      .set((eb) => ({ id: eb.ref('id') }))
      .where('id', '=', id)
      .executeTakeFirst();
    found += Number(locked.numUpdatedRows);
  }
  return found;
}
