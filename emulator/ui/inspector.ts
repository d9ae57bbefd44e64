import { sql } from 'kysely';
import { hashApiKey } from '../../src/auth/api-key.js';
import type { Service } from '../../src/service.js';
import { iso } from '../../src/platform/time.js';
import type { Inspector } from './inspect.routes.js';
import { RESOURCES_PER_KIND, type FixtureKey, type QueuedJob, type WorkspaceResources } from './inspect.schema.js';

/** A key the fixtures made, as the emulator keeps it after loading them. */
interface LoadedFixtureKey {
  name: string;
  secret: string;
}

/** The first heading a page body shows in one language, or null (`RenderedPages.heading`). */
export type BodyHeading = (pageId: string, lang: string, markdown: string) => Promise<string | null>;

const LISTED_STATUSES = ['queued', 'running', 'failed'] as const;

/** The first page of a list, as the resources answer carries it. */
function first<T>(page: { data: T[]; hasMore: boolean }): { data: T[]; hasMore: boolean } {
  return { data: page.data, hasMore: page.hasMore };
}

/**
 * The emulator's `Inspector`, read from its service; `fixtureKeys` answers the keys the
 * fixtures made (with their secrets) as the emulator loaded them, `headingOf` the heading
 * a document page's body shows (the hosted sites' rendering, D-1202).
 */
export function serviceInspector(
  service: Service,
  fixtureKeys: () => readonly LoadedFixtureKey[] = () => [],
  headingOf: BodyHeading = () => Promise.resolve(null),
): Inspector {
  return {
    async workspaces() {
      const [list, usage] = await Promise.all([service.workspaces.list(), service.db.selectFrom('workspaces').select(['id', 'messages_used']).execute()]);
      const used = new Map(usage.map((row) => [row.id, row.messages_used]));
      return list.map((ws) => {
        const spent = used.get(ws.id) ?? 0;
        return { ...ws, messages: { used: spent, limit: ws.credits, remaining: Math.max(0, ws.credits - spent) } };
      });
    },

    // D-852: only keys still active in the store (a revoke, a deleted workspace or a
    // restored snapshot without them hides them), looked up by hash as /v1 does.
    async fixtureKeys() {
      const loaded = fixtureKeys();
      if (loaded.length === 0) return [];
      const byHash = new Map(loaded.map((key) => [hashApiKey(key.secret), key]));
      const now = iso(service.clock.now());
      const rows = await service.db
        .selectFrom('api_keys')
        .select(['id', 'workspace_id', 'name', 'prefix', 'scopes', 'hash'])
        .where('hash', 'in', [...byHash.keys()])
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(
        (row): FixtureKey => ({
          id: row.id,
          workspaceId: row.workspace_id,
          name: row.name,
          prefix: row.prefix,
          scopes: JSON.parse(row.scopes) as string[],
          secret: byHash.get(row.hash)!.secret,
        }),
      );
    },

    createKeyless: (input) => service.workspaces.create(input),

    async resources(workspaceId, origin, limit = RESOURCES_PER_KIND) {
      const workspace = await service.workspaces.getWorkspaceOrThrow(workspaceId);
      const [credits, keys, agents, sources, projects, assets, newest] = await Promise.all([
        service.workspaces.messages(workspaceId),
        service.auth.listKeys(workspaceId, { limit }),
        service.agents.list(workspaceId, { limit }),
        service.knowledge.list(workspaceId, { limit }),
        service.projects.list(workspaceId, { limit }),
        service.assets.list(workspaceId, { limit }, origin),
        service.pages.listNewest(workspaceId, limit),
      ]);
      // What a visitor sees as a document page's heading is its body's, rendered as the site renders it.
      const data = await Promise.all(
        newest.data.map(async (page) => ({
          ...page,
          bodyHeading: page.kind === 'document' ? await headingOf(page.id, page.defaultLocale, page.body[page.defaultLocale]) : null,
        })),
      );
      const pages = { data, hasMore: newest.hasMore };
      return {
        workspace,
        credits,
        keys: first(keys),
        agents: first(agents),
        sources: first(sources),
        projects: first(projects),
        pages,
        assets: first(assets),
      } as WorkspaceResources;
    },

    async queue(limit) {
      const now = iso(service.clock.now());
      const rows = await service.db
        .selectFrom('jobs')
        .select(['id', 'workspace_id', 'kind', 'status', 'run_at', 'attempts', 'last_error', 'created_at'])
        .where('status', 'in', [...LISTED_STATUSES])
        .orderBy('run_at')
        .orderBy('id')
        .limit(limit + 1)
        .execute();
      const grouped = await service.db
        .selectFrom('jobs')
        .select(['status', sql<number>`count(*)`.as('n')])
        .where('status', 'in', [...LISTED_STATUSES])
        .groupBy('status')
        .execute();
      const counts = { queued: 0, running: 0, failed: 0 };
      for (const row of grouped) counts[row.status as keyof typeof counts] = Number(row.n);
      const data: QueuedJob[] = rows.slice(0, limit).map((row) => ({
        id: row.id,
        workspaceId: row.workspace_id,
        kind: row.kind,
        status: row.status as QueuedJob['status'],
        runAt: row.run_at,
        due: row.run_at <= now,
        attempts: row.attempts,
        lastError: row.last_error,
        createdAt: row.created_at,
      }));
      return { data, hasMore: rows.length > limit, counts };
    },

    async openChat(workspaceId, agentId, body) {
      await service.workspaces.getWorkspaceOrThrow(workspaceId);
      return service.chat.openStream(workspaceId, agentId, body);
    },

    async answerChat(workspaceId, agentId, body, signal) {
      await service.workspaces.getWorkspaceOrThrow(workspaceId);
      return service.chat.answer(workspaceId, agentId, body, signal);
    },

    log: (message, error) => service.settings.log(message, error),
    requests: service.requests,
  };
}
