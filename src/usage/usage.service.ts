import type { CoreDeps } from '../core.js';
import { CAP_NAMES, type CapName, type Caps } from '../plans/plans.js';
import type { UsageCounters } from './counters.js';
import type { Usage } from './usage.schema.js';

/** What usage reads of workspaces: their caps, credits and today's activity. */
export interface WorkspaceUsage {
  getWorkspaceOrThrow(workspaceId: string): Promise<{ caps: Caps; dailyActivityCap: number | null }>;
  messages(workspaceId: string): Promise<{ used: number; limit: number; remaining: number }>;
  activityToday(workspaceId: string): Promise<number>;
}

/**
 * What a workspace has used against its plan: AI message credits, the countable
 * items next to their caps, and today's activity next to the daily cap. Each part
 * that owns a countable item lends its counter (`counters`, wired in `createService`).
 */
export class UsageService {
  constructor(private readonly deps: CoreDeps & { workspaces: WorkspaceUsage; counters: UsageCounters }) {}

  /** The usage record of a workspace; today's activity includes the request asking. */
  async get(workspaceId: string): Promise<Usage> {
    const { workspaces, counters } = this.deps;
    const workspace = await workspaces.getWorkspaceOrThrow(workspaceId);
    const counts = {} as Record<CapName, number>;
    for (const name of CAP_NAMES) counts[name] = await counters[name](workspaceId);
    return {
      messages: await workspaces.messages(workspaceId),
      counts,
      caps: workspace.caps,
      activity: { today: await workspaces.activityToday(workspaceId), cap: workspace.dailyActivityCap },
    };
  }
}
