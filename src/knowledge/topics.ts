import type { Transaction } from 'kysely';
import type { Database, Db } from '../db/schema/index.js';
import type { Cursors, ListPage, ListParams } from '../platform/pagination.js';
import { ServiceError } from '../platform/service-error.js';
import { storedTopics } from './sources.js';

export interface TopicCount {
  topic: string;
  sourceCount: number;
}

/** Sources of one scope: an agent's own (`agentId`), or the workspace pool (null). */
function scoped(db: Db, workspaceId: string, agentId: string | null) {
  const q = db.selectFrom('knowledge_sources').where('workspace_id', '=', workspaceId);
  return agentId === null ? q.where('agent_id', 'is', null) : q.where('agent_id', '=', agentId);
}

/**
 * The topics of a scope with how many sources carry each, alphabetically, with cursor
 * pagination over the topic names (cursors signed like every other list's).
 */
export async function listTopics(db: Db, cursors: Cursors, workspaceId: string, agentId: string | null, params: ListParams): Promise<ListPage<TopicCount>> {
  if (params.after !== undefined && params.before !== undefined) {
    throw new ServiceError('svc.request.validation_failed', { errors: [{ field: 'before', reason: 'send either after or before, not both' }] });
  }
  const scope = `${workspaceId}:knowledge_topics:${agentId ?? ''}`;
  const rows = await scoped(db, workspaceId, agentId).select(['id', 'topics']).execute();
  const counts = new Map<string, number>();
  for (const row of rows) for (const topic of storedTopics(row)) counts.set(topic, (counts.get(topic) ?? 0) + 1);
  const all = [...counts.keys()].sort();
  const backwards = params.before !== undefined;
  const raw = params.before ?? params.after;
  const edge = raw === undefined ? undefined : cursors.decode(scope, raw, backwards ? 'before' : 'after').id;
  let page: string[];
  let hasMore: boolean;
  if (backwards) {
    const earlier = all.filter((t) => t < edge!);
    page = earlier.slice(Math.max(0, earlier.length - params.limit));
    hasMore = earlier.length > params.limit;
  } else {
    const later = edge === undefined ? all : all.filter((t) => t > edge);
    page = later.slice(0, params.limit);
    hasMore = later.length > params.limit;
  }
  const next = backwards ? page[0] : page[page.length - 1];
  return {
    data: page.map((topic) => ({ topic, sourceCount: counts.get(topic)! })),
    hasMore,
    nextCursor: hasMore && next !== undefined ? cursors.encode(scope, { createdAt: '', id: next }) : null,
  };
}

/**
 * Rewrites `from` as `into` on every source of the scope (a source that had both keeps
 * one), in the caller's transaction. Answers the ids of the sources rewritten.
 */
export async function mergeTopics(
  trx: Transaction<Database>,
  workspaceId: string,
  agentId: string | null,
  from: string,
  into: string,
  now: string,
): Promise<string[]> {
  // The JSON text holds `"from"` when the array does: a cheap filter before parsing.
  const rows = await scoped(trx, workspaceId, agentId).select(['id', 'topics']).where('topics', 'like', `%"${from}"%`).execute();
  const updated: string[] = [];
  for (const row of rows) {
    const topics = storedTopics(row);
    if (!topics.includes(from)) continue;
    const next = [...new Set(topics.map((t) => (t === from ? into : t)))];
    await trx
      .updateTable('knowledge_sources')
      .set({ topics: JSON.stringify(next), updated_at: now })
      .where('id', '=', row.id)
      .execute();
    updated.push(row.id);
  }
  if (updated.length === 0) {
    throw new ServiceError('svc.knowledge.topic_not_found', { errors: [{ field: 'from', reason: 'no source in this scope has this topic' }] });
  }
  return updated;
}
