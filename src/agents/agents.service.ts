import type { Transaction } from 'kysely';
import type { CoreDeps } from '../core.js';
import { countWorkspaceRows } from '../db/count.js';
import type { Database, Db } from '../db/schema/index.js';
import { prepareQuery, type PreparedQuery } from '../db/prepared.js';
import { lockWorkspaceRows } from '../db/row-locks.js';
import { transaction, type Tx } from '../db/transaction.js';
import type { AgentTable } from '../db/schema/core.js';
import { paginate, type ListPage, type ListParams } from '../platform/pagination.js';
import { ServiceError, type FieldError } from '../platform/service-error.js';
import { iso } from '../platform/time.js';
import type { Agent, AgentCreate, AgentPatch } from './agents.schema.js';

/**
 * What other parts hang on an agent: pages that block its deletion (each named as a
 * `pages.<pageId>` error entry) and records deleted with it (knowledge sources).
 */
export interface AgentDependent {
  blockers?(trx: Transaction<Database>, workspaceId: string, agentId: string): Promise<FieldError[]>;
  cascade?(trx: Tx, workspaceId: string, agentId: string): Promise<{ sourcesDeleted?: number }>;
}

function toAgent(row: AgentTable): Agent {
  return {
    id: row.id,
    name: row.name,
    identity: { businessName: row.business_name, description: row.description },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Agents of a workspace: the brain a conversation answers from. */
export class AgentsService {
  readonly #dependents: AgentDependent[] = [];
  /** Every request naming an agent reads it (an upload for an agent among them): compiled once. */
  readonly #get: PreparedQuery<{ workspaceId: string; agentId: string }, AgentTable>;

  constructor(private readonly deps: Pick<CoreDeps, 'db' | 'clock' | 'ids' | 'cursors' | 'assertCapacity'>) {
    const { db } = deps;
    this.#get = prepareQuery(db, (p) => db.selectFrom('agents').selectAll().where('workspace_id', '=', p('workspaceId')).where('id', '=', p('agentId')));
  }

  addDependent(dependent: AgentDependent): void {
    this.#dependents.push(dependent);
  }

  /** How many agents the workspace has (the `agents` plan cap and usage). */
  count(workspaceId: string, db: Db = this.deps.db): Promise<number> {
    return countWorkspaceRows(db, 'agents', workspaceId);
  }

  async create(workspaceId: string, input: AgentCreate): Promise<Agent> {
    return this.deps.db.transaction().execute(async (trx) => {
      await this.deps.assertCapacity(trx, workspaceId, 'agents', () => this.count(workspaceId, trx));
      const now = iso(this.deps.clock.now());
      const row: AgentTable = {
        id: this.deps.ids.next('agt'),
        workspace_id: workspaceId,
        name: input.name,
        business_name: input.identity.businessName,
        description: input.identity.description,
        created_at: now,
        updated_at: now,
      };
      await trx.insertInto('agents').values(row).execute();
      return toAgent(row);
    });
  }

  async list(workspaceId: string, page: ListParams): Promise<ListPage<Agent>> {
    const query = this.deps.db.selectFrom('agents').selectAll().where('workspace_id', '=', workspaceId);
    return paginate(this.deps.cursors, `${workspaceId}:agents`, page, query, toAgent);
  }

  async getAgent(workspaceId: string, agentId: string, db: Db = this.deps.db): Promise<Agent | undefined> {
    const [row] = await this.#get.execute({ workspaceId, agentId }, db);
    return row && toAgent(row);
  }

  async getAgentOrThrow(workspaceId: string, agentId: string, db: Db = this.deps.db): Promise<Agent> {
    const agent = await this.getAgent(workspaceId, agentId, db);
    if (!agent) throw new ServiceError('svc.agent.not_found');
    return agent;
  }

  async update(workspaceId: string, agentId: string, patch: AgentPatch): Promise<Agent> {
    return this.deps.db.transaction().execute(async (trx) => {
      const current = await this.getAgentOrThrow(workspaceId, agentId, trx);
      const next: Partial<AgentTable> = {
        name: patch.name ?? current.name,
        business_name: patch.identity?.businessName ?? current.identity.businessName,
        description: patch.identity?.description ?? current.identity.description,
        updated_at: iso(this.deps.clock.now()),
      };
      await trx.updateTable('agents').set(next).where('id', '=', agentId).execute();
      return this.getAgentOrThrow(workspaceId, agentId, trx);
    });
  }

  async delete(workspaceId: string, agentId: string): Promise<{ agentId: string; sourcesDeleted: number }> {
    return transaction(this.deps.db, async (trx) => {
      // The workspace's row before the agent's sources' rows, as an ingestion commit takes them (D-1128).
      await lockWorkspaceRows(trx, [workspaceId]);
      await this.getAgentOrThrow(workspaceId, agentId, trx);
      // The agent's row goes first: its lock makes a dependent's write under way in another
      // process (a stored scope index, D-603) commit before the cascades delete its rows,
      // or find the agent gone. A blocker rolls it back with the rest.
      await trx.deleteFrom('agents').where('workspace_id', '=', workspaceId).where('id', '=', agentId).execute();
      const blockers: FieldError[] = [];
      for (const d of this.#dependents) if (d.blockers) blockers.push(...(await d.blockers(trx, workspaceId, agentId)));
      if (blockers.length) throw new ServiceError('svc.agent.in_use', { errors: blockers });
      let sourcesDeleted = 0;
      for (const d of this.#dependents) if (d.cascade) sourcesDeleted += (await d.cascade(trx, workspaceId, agentId)).sourcesDeleted ?? 0;
      return { agentId, sourcesDeleted };
    });
  }
}
