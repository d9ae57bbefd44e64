import { PostgresDialect } from 'kysely';
import type { PGlite } from '@electric-sql/pglite';

const COMMAND = /^\s*(insert|update|delete|merge|select|with)\b/i;

/**
 * Kysely's Postgres dialect over an in-process PGlite. PGlite is one connection, so the
 * pool hands it out to one borrower at a time; a transaction therefore holds it until
 * it commits, exactly like a pool of size one.
 */
export function createPgliteDialect(pg: PGlite): PostgresDialect {
  let tail: Promise<void> = Promise.resolve();
  const pool = {
    async connect() {
      let release!: () => void;
      const previous = tail;
      tail = new Promise<void>((resolve) => (release = resolve));
      await previous;
      return {
        async query(text: string, params: readonly unknown[]) {
          const res = await pg.query<Record<string, unknown>>(text, params as unknown[]);
          const command = COMMAND.exec(text)?.[1]?.toUpperCase();
          return { command, rowCount: res.affectedRows ?? res.rows.length, rows: res.rows };
        },
        release() {
          release();
        },
      };
    },
    async end() {},
  };
  // The pool shape is the subset of pg.Pool that PostgresDriver calls.
  return new PostgresDialect({ pool: pool as never });
}
