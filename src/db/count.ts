import type { Db } from './schema/index.js';

/** How many rows of `table` the workspace has: what a plan cap and usage count. */
export async function countWorkspaceRows(db: Db, table: 'agents' | 'pages' | 'projects', workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
