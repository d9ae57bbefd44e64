import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema/index.js';
import type { JobTable } from '../db/schema/core.js';
import { DB_NOW_MS, type SharedProcess } from '../platform/shared-process.js';
import { inTurns, type JobClaims } from './claims.js';

const QUIET_WAIT_MS = 25;

/**
 * Jobs among processes sharing a PostgreSQL store (decisions, D-204). A claim takes due
 * rows with `FOR UPDATE SKIP LOCKED` (two processes never take the same one) and notes
 * who holds each in `job_leases`. A `running` job whose holder's lease lapsed (killed,
 * or cut off from the database) is claimed again by whoever looks next, and so is one
 * this process holds a lease on but no longer runs (its end could not be written).
 * Nobody claims while a process prepares a state import (`pausing`).
 */
export class LeasedClaims implements JobClaims {
  readonly poll = true;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly process: SharedProcess,
  ) {}

  async recover(): Promise<void> {}

  async claim(now: string, limit: number, holding: ReadonlySet<string>, served: readonly string[], kind?: string): Promise<JobTable[]> {
    if (limit <= 0) return [];
    const me = this.process.id;
    // Queued and due, or running under no live lease (of another process, or of this
    // one for a job it no longer runs); nobody preparing an import; of `kind`, if given.
    const claimable = sql`((j.status = 'queued' AND j.run_at <= ${now})
          OR (j.status = 'running' AND NOT EXISTS (
                SELECT 1 FROM job_leases l JOIN instances i ON i.id = l.instance_id
                WHERE l.job_id = j.id AND i.lease_until > ${DB_NOW_MS}
                  AND (l.instance_id <> ${me} OR j.id = ANY(${[...holding]}::text[])))))
        AND NOT EXISTS (SELECT 1 FROM instances p WHERE p.pausing = 1 AND p.lease_until > ${DB_NOW_MS})
        AND (${kind ?? null}::text IS NULL OR j.kind = ${kind ?? null})`;
    return this.db.transaction().execute(async (trx) => {
      // Workspaces take turns (D-1118). A window function cannot share a query level
      // with FOR UPDATE: the turns are counted first, then the rows locked, the
      // condition checked again on each row as locked (another process may have just
      // claimed it).
      const { rows } = await sql<JobTable & { turn: number | string }>`
        WITH due AS (
          SELECT j.id, j.run_at, row_number() OVER (PARTITION BY j.workspace_id ORDER BY j.run_at, j.id) AS turn
          FROM jobs j WHERE ${claimable}
        ),
        picked AS (
          SELECT j.id, d.turn FROM jobs j JOIN due d ON d.id = j.id
          WHERE ${claimable}
          ORDER BY d.turn, coalesce(array_position(${[...served]}::text[], j.workspace_id), 0), d.run_at, d.id
          LIMIT ${limit}
          FOR UPDATE OF j SKIP LOCKED
        )
        UPDATE jobs SET status = 'running', attempts = jobs.attempts + 1, updated_at = ${now}
        FROM picked WHERE jobs.id = picked.id
        RETURNING jobs.*, picked.turn`.execute(trx);
      if (rows.length > 0) {
        await trx
          .insertInto('job_leases')
          .values(rows.map((r) => ({ job_id: r.id, instance_id: me })))
          .onConflict((oc) => oc.column('job_id').doUpdateSet((eb) => ({ instance_id: eb.ref('excluded.instance_id') })))
          .execute();
      }
      return inTurns(rows, served);
    });
  }

  /** Only the jobs this process still holds: one that was taken over is the new holder's to end. */
  async finish(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      const held = await trx.deleteFrom('job_leases').where('job_id', 'in', ids).where('instance_id', '=', this.process.id).returning('job_id').execute();
      if (held.length > 0)
        await trx
          .deleteFrom('jobs')
          .where(
            'id',
            'in',
            held.map((row) => row.job_id),
          )
          .execute();
    });
  }

  async fail(id: string, message: string, now: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const held = await trx.deleteFrom('job_leases').where('job_id', '=', id).where('instance_id', '=', this.process.id).executeTakeFirst();
      if (Number(held.numDeletedRows) === 1) {
        await trx.updateTable('jobs').set({ status: 'failed', last_error: message, updated_at: now }).where('id', '=', id).execute();
      }
    });
  }

  async quiet<T>(fn: () => Promise<T>): Promise<T> {
    await this.process.pause();
    try {
      // Jobs others run end by themselves, or their holder's lease lapses.
      for (;;) {
        const running = await this.db
          .selectFrom('jobs as j')
          .innerJoin('job_leases as l', 'l.job_id', 'j.id')
          .innerJoin('instances as i', 'i.id', 'l.instance_id')
          .select('j.id')
          .where('j.status', '=', 'running')
          .where('i.lease_until', '>', DB_NOW_MS)
          .limit(1)
          .executeTakeFirst();
        if (!running) break;
        await new Promise((resolve) => setTimeout(resolve, QUIET_WAIT_MS));
      }
      return await fn();
    } finally {
      await this.process.resume().catch(() => {});
    }
  }

  async pending(now: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('jobs')
      .select('id')
      .where((eb) => eb.or([eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', now)]), eb('status', '=', 'running')]))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }
}
