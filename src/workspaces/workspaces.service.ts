import type { Kysely } from 'kysely';
import type { Database, Db } from '../db/schema/index.js';
import { WORKSPACE_TABLES } from '../db/schema/index.js';
import { lockWorkspaceRow, lockWorkspaceRows } from '../db/row-locks.js';
import type { WorkspaceTable } from '../db/schema/core.js';
import { prepareQuery, type PreparedQuery } from '../db/prepared.js';
import { afterCommit, transaction, type Tx } from '../db/transaction.js';
import type { Clock } from '../platform/clock.js';
import type { IdGenerator } from '../platform/ids.js';
import { ServiceError } from '../platform/service-error.js';
import { CAP_NAMES, type CapName, type Caps, type WorkspaceDefaults } from '../plans/plans.js';
import { storedJson } from '../platform/stored.js';
import { iso } from '../platform/time.js';
import { StoredCapsSchema, type WorkspaceSettingsPatch } from './workspaces.schema.js';
import { ActivityCounter, type ActivityStore } from './activity.js';
import type { Coherence } from '../platform/coherence.js';

export interface WorkspaceRecord {
  id: string;
  name: string;
  plan: string;
  rateLimit: { limit: number; windowSeconds: number };
  dailyActivityCap: number | null;
  credits: number;
  caps: Caps;
  createdAt: string;
  updatedAt: string;
}

function toRecord(row: WorkspaceTable): WorkspaceRecord {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    rateLimit: { limit: row.rate_limit, windowSeconds: row.rate_window_seconds },
    dailyActivityCap: row.daily_activity_cap,
    credits: row.credits,
    caps: storedJson(StoredCapsSchema, row.caps, { table: 'workspaces', row: row.id, column: 'caps' }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const CAP_DETAIL: Record<CapName, { en: string; es: string }> = {
  projects: { en: 'The plan allows no more sites.', es: 'El plan no permite más sitios.' },
  agents: { en: 'The plan allows no more agents.', es: 'El plan no permite más agentes.' },
  pages: { en: 'The plan allows no more pages.', es: 'El plan no permite más páginas.' },
  knowledgeDocuments: { en: 'The plan allows no more knowledge documents.', es: 'El plan no permite más documentos de conocimiento.' },
  customDomains: { en: 'The plan allows no more custom domains.', es: 'El plan no permite más dominios propios.' },
  seats: { en: 'The plan allows no more seats.', es: 'El plan no permite más puestos.' },
};

/**
 * Workspaces and their settings: rate limit, daily activity cap, message credits and
 * plan caps. The control plane edits them; every other service reads them here.
 */
export class WorkspacesService {
  readonly #listeners = new Set<() => void>();
  /** Today's activity per workspace (CONTRACT control plane: every authenticated request counts). */
  readonly activity: ActivityStore;

  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      clock: Clock;
      ids: IdGenerator;
      defaults: WorkspaceDefaults;
      /** Default: counted in memory and written in batches (`ActivityCounter`). */
      activity?: ActivityStore | undefined;
      /** Told inside every transaction that changes a workspace, for other processes' caches. */
      coherence?: Coherence | undefined;
    },
  ) {
    this.activity = deps.activity ?? new ActivityCounter(deps.db, deps.clock);
    const { db } = deps;
    this.#get = prepareQuery(db, (p) => db.selectFrom('workspaces').selectAll().where('id', '=', p('id')));
  }

  /** Every add checks the workspace's plan caps (each upload among them): compiled once. */
  readonly #get: PreparedQuery<{ id: string }, WorkspaceTable>;

  /** Runs `listener` after any change of a workspace's settings or existence. */
  onChange(listener: () => void): void {
    this.#listeners.add(listener);
  }

  /**
   * `trx` changes a workspace's settings or existence: other processes learn it with its
   * commit (coherence), this one's listeners once it has committed (D-960).
   */
  async #changed(trx: Tx): Promise<void> {
    await this.deps.coherence?.changed(trx);
    afterCommit(trx, () => {
      for (const listener of this.#listeners) listener();
    });
  }

  async create(input: { name?: string | undefined; plan?: string | undefined; credits?: number | undefined }, db: Db = this.deps.db): Promise<WorkspaceRecord> {
    const d = this.deps.defaults;
    const now = iso(this.deps.clock.now());
    const row: WorkspaceTable = {
      id: this.deps.ids.next('ws'),
      name: input.name ?? 'Workspace',
      plan: input.plan ?? d.plan,
      rate_limit: d.rateLimit.limit,
      rate_window_seconds: d.rateLimit.windowSeconds,
      daily_activity_cap: d.dailyActivityCap,
      credits: input.credits ?? d.credits,
      messages_used: 0,
      caps: JSON.stringify(d.caps),
      created_at: now,
      updated_at: now,
    };
    await db.insertInto('workspaces').values(row).execute();
    return toRecord(row);
  }

  async getWorkspace(id: string, db: Db = this.deps.db): Promise<WorkspaceRecord | undefined> {
    const [row] = await this.#get.execute({ id }, db);
    return row && toRecord(row);
  }

  async getWorkspaceOrThrow(id: string, db: Db = this.deps.db): Promise<WorkspaceRecord> {
    const ws = await this.getWorkspace(id, db);
    if (!ws) throw new ServiceError('svc.tenant.not_found');
    return ws;
  }

  async list(): Promise<WorkspaceRecord[]> {
    const rows = await this.deps.db.selectFrom('workspaces').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map(toRecord);
  }

  async update(id: string, patch: WorkspaceSettingsPatch): Promise<WorkspaceRecord> {
    return transaction(this.deps.db, async (trx) => {
      const current = await this.getWorkspaceOrThrow(id, trx);
      const caps = { ...current.caps };
      for (const name of CAP_NAMES) if (patch.caps?.[name] !== undefined) caps[name] = patch.caps[name]!;
      await trx
        .updateTable('workspaces')
        .set({
          name: patch.name ?? current.name,
          plan: patch.plan ?? current.plan,
          rate_limit: patch.rateLimit?.limit ?? current.rateLimit.limit,
          rate_window_seconds: patch.rateLimit?.windowSeconds ?? current.rateLimit.windowSeconds,
          daily_activity_cap: patch.dailyActivityCap === undefined ? current.dailyActivityCap : patch.dailyActivityCap,
          credits: patch.credits ?? current.credits,
          caps: JSON.stringify(caps),
          updated_at: iso(this.deps.clock.now()),
        })
        .where('id', '=', id)
        .execute();
      await this.#changed(trx);
      return this.getWorkspaceOrThrow(id, trx);
    });
  }

  /** Drops the workspace and every row that belongs to it. */
  async delete(id: string): Promise<void> {
    this.activity.forget(id);
    await transaction(this.deps.db, async (trx) => {
      // The workspace's row first: a writer under way in another process that locked it
      // (ingestion, a chat turn's credit) commits before the cascades, rather than each
      // waiting on a row the other holds (D-1127).
      await lockWorkspaceRows(trx, [id]);
      await this.getWorkspaceOrThrow(id, trx);
      for (const table of WORKSPACE_TABLES) {
        await trx
          .deleteFrom(table as 'jobs')
          .where('workspace_id', '=', id)
          .execute();
      }
      await trx.deleteFrom('workspaces').where('id', '=', id).execute();
      await this.#changed(trx);
    });
  }

  /** Counts one activity of the workspace's UTC day; false (nothing counted) at the cap. */
  recordActivity(workspaceId: string, cap: number | null): boolean | Promise<boolean> {
    return this.activity.record(workspaceId, cap);
  }

  activityToday(workspaceId: string): Promise<number> {
    return this.activity.today(workspaceId);
  }

  /**
   * Refuses with `402 svc.billing.limit_reached` when adding `adding` items would pass
   * the plan cap. Call inside the transaction that inserts, before the insert; `count`
   * counts the items there are. The workspace's row is locked first (D-1140): creators
   * of one workspace count one after the other, so that two processes never both pass
   * the cap's last place, and a creator that waited on the workspace's deletion, or on
   * an import that dropped it, finds it gone (`401 svc.api_key.invalid`, as the next
   * request with its key would) instead of inserting rows of no workspace.
   */
  async assertCapacity(trx: Db, workspaceId: string, cap: CapName, count: () => Promise<number>, adding = 1): Promise<void> {
    if (!(await lockWorkspaceRow(trx, workspaceId))) throw new ServiceError('svc.api_key.invalid');
    const ws = await this.getWorkspaceOrThrow(workspaceId, trx);
    const limit = ws.caps[cap];
    // No cap, nothing to count: a workspace of thousands of sources counted them all on every upload.
    if (limit === null) return;
    if ((await count()) + adding > limit) {
      throw new ServiceError('svc.billing.limit_reached', {
        detail: CAP_DETAIL[cap],
        errors: [{ field: cap, reason: `plan cap of ${limit} reached`, limit }],
      });
    }
  }

  /**
   * Spends one message credit atomically; false when none is left, or when spending it
   * would leave fewer than `keep` (credits reserved for someone else). A workspace deleted
   * under the request (another request, another process) is `401 svc.api_key.invalid`,
   * what the key's next request gets (D-1140), not a spent allowance.
   */
  async spendCredit(workspaceId: string, db: Db = this.deps.db, keep = 0): Promise<boolean> {
    const row = await db
      .updateTable('workspaces')
      .set((eb) => ({ messages_used: eb('messages_used', '+', 1) }))
      .where('id', '=', workspaceId)
      .where((eb) => eb(eb('messages_used', '+', keep), '<', eb.ref('credits')))
      .returning('messages_used')
      .executeTakeFirst();
    if (row !== undefined) return true;
    if (!(await db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).executeTakeFirst())) throw new ServiceError('svc.api_key.invalid');
    return false;
  }

  /** The workspace's message allowance; gone under the request, `401 svc.api_key.invalid` (as `spendCredit`). */
  async messages(workspaceId: string): Promise<{ used: number; limit: number; remaining: number }> {
    const row = await this.deps.db.selectFrom('workspaces').select(['messages_used', 'credits']).where('id', '=', workspaceId).executeTakeFirst();
    if (!row) throw new ServiceError('svc.api_key.invalid');
    return { used: row.messages_used, limit: row.credits, remaining: Math.max(0, row.credits - row.messages_used) };
  }
}
