import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema/index.js';
import type { JobTable } from '../db/schema/core.js';

/**
 * How the queue takes jobs: alone (`LocalClaims`, the store is this process's), or
 * with leases among processes sharing a store (`LeasedClaims`, decisions, D-204).
 */
export interface JobClaims {
  /** At start: jobs a stop of this store's users cut off become runnable again. */
  recover(): Promise<void>;
  /**
   * Claims at most `limit` due jobs (`run_at <= now`) for this process, marked `running`
   * with one more attempt; with `kind`, only jobs of that kind. `holding`: the jobs this
   * process runs now. Workspaces take turns (D-1118): each workspace's oldest due job
   * comes before any workspace's second, and within a turn a workspace `served` names
   * later goes later (`served`: workspace ids, the one served longest ago first; one not
   * named goes first), then the oldest job; so a workspace's single upload does not wait
   * behind another's hundreds.
   */
  claim(now: string, limit: number, holding: ReadonlySet<string>, served: readonly string[], kind?: string): Promise<JobTable[]>;
  /** The jobs ended well: they leave the table (one statement for a batch). */
  finish(ids: readonly string[]): Promise<void>;
  /** The job threw: it stays, `failed`, with the message. */
  fail(id: string, message: string, now: string): Promise<void>;
  /** Whether a due job is queued, or running anywhere. */
  pending(now: string): Promise<boolean>;
  /**
   * Runs `fn` while no job runs anywhere and none is claimed (a state import: the queue
   * of this process is stopped first; other processes finish what they run and wait).
   */
  quiet<T>(fn: () => Promise<T>): Promise<T>;
  /** Whether to look for jobs on a timer even when the clock stands still (others leave work). */
  readonly poll: boolean;
}

/** The store is this process's alone: a `running` job at start was cut off by a stop. */
export class LocalClaims implements JobClaims {
  readonly poll = false;

  constructor(private readonly db: Kysely<Database>) {}

  async recover(): Promise<void> {
    await this.db.updateTable('jobs').set({ status: 'queued' }).where('status', '=', 'running').execute();
  }

  /** One transaction for the whole claim (D-891): a select and one update, not an update per job. */
  async claim(now: string, limit: number, holding: ReadonlySet<string>, served: readonly string[], kind?: string): Promise<JobTable[]> {
    if (limit <= 0) return [];
    return this.db.transaction().execute(async (trx) => {
      // No turn past `limit` (and the jobs held) can be taken: the rest stay in the store.
      const candidates = await firstDueOfEachWorkspace(trx, now, limit + holding.size, kind);
      const rows = inTurns(candidates, served)
        .filter((row) => !holding.has(row.id))
        .slice(0, limit);
      if (rows.length === 0) return [];
      // The store is this process's alone and the rows were read in this transaction: every one is still queued.
      await trx
        .updateTable('jobs')
        .set((eb) => ({ status: 'running', attempts: eb('attempts', '+', 1), updated_at: now }))
        .where(
          'id',
          'in',
          rows.map((row) => row.id),
        )
        .execute();
      return rows.map((row) => ({ ...row, status: 'running', attempts: row.attempts + 1, updated_at: now }));
    });
  }

  async finish(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.db.deleteFrom('jobs').where('id', 'in', ids).execute();
  }

  async fail(id: string, message: string, now: string): Promise<void> {
    await this.db.updateTable('jobs').set({ status: 'failed', last_error: message, updated_at: now }).where('id', '=', id).execute();
  }

  quiet<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  async pending(now: string): Promise<boolean> {
    const row = await this.db.selectFrom('jobs').select('id').where('status', '=', 'queued').where('run_at', '<=', now).limit(1).executeTakeFirst();
    return row !== undefined;
  }
}

/**
 * The first `depth` due jobs (`run_at <= now`, queued, of `kind` if given) of every
 * workspace that has one, each with its `turn` (its place among its workspace's due jobs,
 * from 1): the workspaces with queued jobs found by one seek each of the `jobs_turns`
 * index (a loose index scan), then each one's first due jobs by another (D-1209). A
 * window function numbering every due job read and sorted the whole queue on every claim.
 */
async function firstDueOfEachWorkspace(db: Kysely<Database>, now: string, depth: number, kind: string | undefined): Promise<(JobTable & { turn: number })[]> {
  const ofKind = kind === undefined ? sql`` : sql` and kind = ${kind}`;
  const due = sql`status = 'queued' and run_at <= ${now}${ofKind}`;
  // The workspaces with queued jobs, due or not: one seek each, where a workspace whose
  // jobs all run later (re-crawls) would have its entries read one by one.
  const { rows } = await sql<JobTable>`
    with recursive ws(id) as (
      select (select workspace_id from jobs where status = 'queued' order by workspace_id limit 1)
      union all
      select (select workspace_id from jobs where status = 'queued' and workspace_id > ws.id order by workspace_id limit 1) from ws where ws.id is not null
    )
    select j.* from ws, jobs j
    where j.id in (select id from jobs where ${due} and workspace_id = ws.id order by run_at, id limit ${depth})
    order by j.workspace_id, j.run_at, j.id`.execute(db);
  let turn = 0;
  return rows.map((row, i) => {
    turn = i > 0 && rows[i - 1]!.workspace_id === row.workspace_id ? turn + 1 : 1;
    return { ...row, turn };
  });
}

/**
 * `rows` (each with its `turn`, its place among its workspace's due jobs) in the order
 * workspaces take turns (D-1118), without their turns.
 */
export function inTurns<R extends JobTable & { turn: number | string }>(rows: readonly R[], served: readonly string[]): JobTable[] {
  const place = new Map(served.map((id, i) => [id, i]));
  const rank = (row: R) => place.get(row.workspace_id) ?? -1;
  return [...rows]
    .sort(
      (a, b) =>
        Number(a.turn) - Number(b.turn) || rank(a) - rank(b) || (a.run_at < b.run_at ? -1 : a.run_at > b.run_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    )
    .map(({ turn: _, ...row }) => row);
}
