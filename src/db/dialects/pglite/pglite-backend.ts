import { holdStore } from '../store-lock.js';
import { POSTGRES_DIALECT } from '../postgres/postgres-dialect.js';
import type { Backend } from '../sql-dialect.js';
import { PgliteDialect } from './pglite-driver.js';

/**
 * Postgres in process (PGlite): in memory without `dataDir`, else that directory, held by
 * this store alone while it is open (two PGlite instances on one directory would each
 * write over the other's pages).
 */
export async function openPglite(dataDir?: string): Promise<Backend> {
  const { PGlite } = await import('@electric-sql/pglite');
  const held = dataDir === undefined ? undefined : holdStore(dataDir, 'data directory');
  let pg: InstanceType<typeof PGlite>;
  try {
    pg = new PGlite(dataDir);
    await pg.waitReady;
  } catch (error) {
    held?.release();
    throw error;
  }
  return {
    kysely: new PgliteDialect(pg),
    sql: POSTGRES_DIALECT,
    async close(db) {
      await db.destroy();
      await pg.close();
      held?.release();
    },
  };
}
