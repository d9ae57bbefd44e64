import type pg from 'pg';
import { expect } from 'vitest';

/** A statement another process runs: SQL and its parameters. */
export type Statement = [sql: string, params?: unknown[]];

/** Once some statement whose text matches `like` waits on a lock (or 20 s have passed): how many do. */
export async function waitersOnLock(pool: pg.Pool, like: string): Promise<number> {
  let waiting = 0;
  for (const until = Date.now() + 20_000; waiting === 0 && Date.now() < until; ) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE $1`,
      [like],
    );
    waiting = rows[0].n;
  }
  return waiting;
}

/**
 * Another process's transaction, on a connection of `pool`: `before` runs, then
 * `request` starts here and this waits until it waits on a lock, then `after` runs and
 * commits (rolled back if it fails). Resolves with the other process's error, if any,
 * and the request's answer.
 */
export async function againstOtherWriter<A>(
  pool: pg.Pool,
  before: Statement[],
  request: () => Promise<A>,
  after: Statement[],
): Promise<{ otherError: unknown; answer: A }> {
  const other = await pool.connect();
  let otherError: unknown;
  let answer: Promise<A>;
  try {
    await other.query('BEGIN');
    for (const [sql, params] of before) await other.query(sql, params);
    answer = request();
    expect(await waitersOnLock(pool, '%')).toBe(1);
    try {
      for (const [sql, params] of after) await other.query(sql, params);
      await other.query('COMMIT');
    } catch (error) {
      otherError = error;
      await other.query('ROLLBACK');
    }
  } finally {
    other.release();
  }
  return { otherError, answer: await answer! };
}
