import { POSTGRES_DIALECT } from '../postgres/postgres-dialect.js';
import type { Backend } from '../sql-dialect.js';
import { PgliteDialect } from './pglite-driver.js';

/** Postgres in process (PGlite): in memory without `dataDir`, else that directory. */
export async function openPglite(dataDir?: string): Promise<Backend> {
  const { PGlite } = await import('@electric-sql/pglite');
  const pg = new PGlite(dataDir);
  await pg.waitReady;
  return {
    kysely: new PgliteDialect(pg),
    sql: POSTGRES_DIALECT,
    async close(db) {
      await db.destroy();
      await pg.close();
    },
  };
}
