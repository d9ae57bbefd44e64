import type { Transaction } from 'kysely';
import type { CoreDeps } from '../core.js';
import type { Database, Db } from '../db/schema/index.js';
import { storedJson } from '../platform/stored.js';
import { iso } from '../platform/time.js';
import { StoredTokensSchema, type Theme, type ThemePatch } from './theme.schema.js';
import { DEFAULT_TOKENS, cssVariables, mergeTokens, type ThemeTokens } from './theme-tokens.js';

/** What themes need of projects: the site (its creation time dates an untouched theme), its row locked before a write (D-1131). */
export interface ProjectLookup {
  getProjectOrThrow(workspaceId: string, projectId: string, db?: Db): Promise<{ createdAt: string }>;
  lockProjectOrThrow(trx: Transaction<Database>, workspaceId: string, projectId: string): Promise<unknown>;
}

function theme(tokens: ThemeTokens, customized: boolean, updatedAt: string): Theme {
  return { tokens, cssVariables: cssVariables(tokens), customized, updatedAt };
}

/**
 * The appearance of a site: a closed set of tokens (colours, typefaces, radius) over
 * the service defaults, and the CSS variables they make.
 */
export class ThemeService {
  constructor(private readonly deps: CoreDeps & { projects: ProjectLookup }) {}

  /** Deletes a site's theme, in the project's deleting transaction. */
  async deleteForProject(trx: Transaction<Database>, workspaceId: string, projectId: string): Promise<void> {
    await trx.deleteFrom('themes').where('workspace_id', '=', workspaceId).where('project_id', '=', projectId).execute();
  }

  /**
   * The theme in force for a site: its own tokens or the defaults, with CSS variables.
   * A site never themed reports its creation time as `updatedAt`.
   */
  async getTheme(workspaceId: string, projectId: string, db: Db = this.deps.db): Promise<Theme> {
    const project = await this.deps.projects.getProjectOrThrow(workspaceId, projectId, db);
    const row = await db.selectFrom('themes').selectAll().where('workspace_id', '=', workspaceId).where('project_id', '=', projectId).executeTakeFirst();
    if (!row) return theme(DEFAULT_TOKENS, false, project.createdAt);
    // Checked before any token becomes CSS: only a 6-digit hex or a catalogue key reaches it (D-722).
    return theme(storedJson(StoredTokensSchema, row.tokens, { table: 'themes', row: projectId, column: 'tokens' }), row.customized === 1, row.updated_at);
  }

  /** Merges a partial patch onto the tokens in force; `tokens: null` goes back to the defaults. */
  async update(workspaceId: string, projectId: string, patch: ThemePatch): Promise<Theme> {
    return this.deps.db.transaction().execute(async (trx) => {
      await this.deps.projects.lockProjectOrThrow(trx, workspaceId, projectId);
      const current = await this.getTheme(workspaceId, projectId, trx);
      const tokens = patch.tokens === null ? DEFAULT_TOKENS : mergeTokens(current.tokens, patch.tokens);
      const customized = patch.tokens !== null;
      const now = iso(this.deps.clock.now());
      const values = { tokens: JSON.stringify(tokens), customized: customized ? 1 : 0, updated_at: now };
      await trx
        .insertInto('themes')
        .values({ project_id: projectId, workspace_id: workspaceId, ...values })
        .onConflict((oc) => oc.column('project_id').doUpdateSet(values))
        .execute();
      return theme(tokens, customized, now);
    });
  }
}
