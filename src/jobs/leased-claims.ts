import { setTimeout } from 'node:timers';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema/index.js';
import type { JobTable } from '../db/schema/core.js';
import { DB_NOW_MS, type SharedProcess } from '../platform/shared-process.js';
import { inTurns, type JobClaims } from './claims.js';

const QUIET_WAIT_MS = 25;
/**
 * How many times a claim's `limit` each workspace offers it at most: the jobs other
 * processes' claims have locked meanwhile are skipped, and the rest still fill the claim
 * while up to three others take theirs from the same workspace (D-1211).
 */
const DEPTH_PER_CLAIM = 4;

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
    const ofKind = sql`(${kind ?? null}::text IS NULL OR j.kind = ${kind ?? null})`;
    // Running under no live lease (of another process, or of this one for a job it no
    // longer runs): few, left by a process that died or lost the database.
    const unleased = sql`NOT EXISTS (
                SELECT 1 FROM job_leases l JOIN instances i ON i.id = l.instance_id
                WHERE l.job_id = j.id AND i.lease_until > ${DB_NOW_MS}
                  AND (l.instance_id <> ${me} OR j.id = ANY(${[...holding]}::text[])))`;
    // Queued and due, or running unleased; nobody preparing an import; of `kind`, if
    // given. Checked on rows found by their ids, as one CASE: no index serves it, so the
    // planner reaches them by the primary key, where a condition on `status` let it
    // walk the `jobs_turns` index with statistics that lag behind a burst (D-1211).
    const claimable = sql`CASE j.status WHEN 'queued' THEN j.run_at <= ${now} WHEN 'running' THEN ${unleased} ELSE false END
        AND NOT EXISTS (SELECT 1 FROM instances p WHERE p.pausing = 1 AND p.lease_until > ${DB_NOW_MS})
        AND ${ofKind}`;
    return this.db.transaction().execute(async (trx) => {
      // Workspaces take turns (D-1118), numbered among the first jobs of each (D-1211):
      // the workspaces with queued jobs by one seek each of `jobs_turns` (a loose index
      // scan), each one's first due jobs by another, and the unleased ones; numbering
      // every claimable job read the whole queue on every claim. A window function cannot
      // share a query level with FOR UPDATE: the turns are counted first, then the rows
      // locked in turn order, each checked again as locked (another process may have just
      // claimed it). Rows another claim has locked are skipped: `DEPTH_PER_CLAIM` leaves
      // room for them, and a claim that still takes fewer is followed by another.
      const { rows } = await sql<JobTable & { turn: number | string }>`
        WITH RECURSIVE ws(id) AS (
          SELECT (SELECT workspace_id FROM jobs WHERE status = 'queued' ORDER BY workspace_id LIMIT 1)
          UNION ALL
          SELECT (SELECT workspace_id FROM jobs WHERE status = 'queued' AND workspace_id > ws.id ORDER BY workspace_id LIMIT 1)
          FROM ws WHERE ws.id IS NOT NULL
        ),
        candidates AS (
          SELECT d.id, d.workspace_id, d.run_at FROM ws CROSS JOIN LATERAL (
            SELECT j.id, j.workspace_id, j.run_at FROM jobs j
            WHERE j.status = 'queued' AND j.workspace_id = ws.id AND j.run_at <= ${now} AND ${ofKind}
            ORDER BY j.run_at, j.id LIMIT ${limit * DEPTH_PER_CLAIM}
          ) d
          WHERE ws.id IS NOT NULL
          UNION ALL
          SELECT j.id, j.workspace_id, j.run_at FROM jobs j WHERE j.status = 'running' AND ${unleased} AND ${ofKind}
        ),
        due AS (
          SELECT c.id, c.workspace_id, c.run_at, row_number() OVER (PARTITION BY c.workspace_id ORDER BY c.run_at, c.id) AS turn FROM candidates c
        ),
        ordered AS (
          SELECT d.id, d.turn, row_number() OVER (ORDER BY d.turn, coalesce(array_position(${[...served]}::text[], d.workspace_id), 0), d.run_at, d.id) AS place
          FROM due d ORDER BY place LIMIT ${limit * DEPTH_PER_CLAIM}
        ),
        picked AS (
          SELECT j.id, o.turn FROM jobs j JOIN ordered o ON o.id = j.id
          -- The join says it; the list of ids makes the planner read these rows by primary key.
          WHERE j.id = ANY(ARRAY(SELECT id FROM ordered)) AND ${claimable}
          ORDER BY o.place
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
