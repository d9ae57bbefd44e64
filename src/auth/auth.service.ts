import type { Kysely } from 'kysely';
import type { Database } from '../db/schema/index.js';
import type { ApiKeyTable } from '../db/schema/core.js';
import type { Clock } from '../platform/clock.js';
import type { AuthContext } from '../platform/context.js';
import type { IdGenerator } from '../platform/ids.js';
import { paginate, type Cursors, type Page, type PageParams } from '../platform/pagination.js';
import { SCOPES, type Scope } from '../platform/scopes.js';
import { ServiceError, fieldError } from '../platform/service-error.js';
import { iso, parseIso } from '../platform/time.js';
import type { WorkspacesService } from '../workspaces/workspaces.service.js';
import { formatApiKey, hashApiKey, isWellFormedKey, keyPrefix, type KeyEnv } from './api-key.js';
import type { KeyCreateInput } from './auth.schema.js';

export interface KeyRecord {
  id: string;
  name: string;
  prefix: string;
  env: KeyEnv;
  scopes: Scope[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** The caller of one request with the limits of its workspace. */
export interface Caller {
  auth: AuthContext;
  rateLimit: { limit: number; windowSeconds: number };
  dailyActivityCap: number | null;
}

export const MAX_ACTIVE_KEYS = 2;

const sortScopes = (scopes: Iterable<Scope>): Scope[] => {
  const set = new Set(scopes);
  return SCOPES.filter((s) => set.has(s));
};

function toRecord(row: ApiKeyTable): KeyRecord {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    env: row.env as KeyEnv,
    scopes: JSON.parse(row.scopes) as Scope[],
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

const invalidKey = () => new ServiceError('svc.api_key.invalid');

/**
 * API keys: creation (secret shown once, stored as SHA-256), listing, revocation and
 * the authentication of every `/v1` request.
 */
export class AuthService {
  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      clock: Clock;
      ids: IdGenerator;
      cursors: Cursors;
      workspaces: WorkspacesService;
    },
  ) {}

  async createKey(workspaceId: string, input: KeyCreateInput): Promise<KeyRecord & { secret: string }> {
    const now = this.deps.clock.now();
    const expiresMs = input.expiresAt ? parseIso(input.expiresAt)! : undefined;
    if (expiresMs !== undefined && expiresMs <= now) {
      throw fieldError('svc.request.validation_failed', 'expiresAt', 'must be in the future');
    }
    return this.deps.db.transaction().execute(async (trx) => {
      await this.deps.workspaces.getWorkspaceOrThrow(workspaceId, trx);
      const nowIso = iso(now);
      const active = await trx
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', nowIso)]))
        .executeTakeFirstOrThrow();
      if (Number(active.n) >= MAX_ACTIVE_KEYS) throw new ServiceError('svc.api_key.limit_reached');
      const secret = formatApiKey(input.env, this.deps.ids.secret(32));
      const row: ApiKeyTable = {
        id: this.deps.ids.next('key'),
        workspace_id: workspaceId,
        name: input.name,
        prefix: keyPrefix(secret),
        env: input.env,
        hash: hashApiKey(secret),
        scopes: JSON.stringify(sortScopes(input.scopes)),
        created_at: nowIso,
        expires_at: expiresMs === undefined ? null : iso(expiresMs),
        revoked_at: null,
      };
      await trx.insertInto('api_keys').values(row).execute();
      return { ...toRecord(row), secret };
    });
  }

  async listKeys(workspaceId: string, page: PageParams): Promise<Page<KeyRecord>> {
    await this.deps.workspaces.getWorkspaceOrThrow(workspaceId);
    const query = this.deps.db.selectFrom('api_keys').selectAll().where('workspace_id', '=', workspaceId);
    return paginate(this.deps.cursors, `${workspaceId}:keys`, page, query, toRecord);
  }

  async revokeKey(workspaceId: string, keyId: string): Promise<KeyRecord> {
    return this.deps.db.transaction().execute(async (trx) => {
      await this.deps.workspaces.getWorkspaceOrThrow(workspaceId, trx);
      const row = await trx
        .selectFrom('api_keys')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', keyId)
        .executeTakeFirst();
      if (!row) throw new ServiceError('svc.resource.not_found', { detail: { en: 'No such key in this workspace.', es: 'No existe esa clave en este espacio de trabajo.' } });
      if (row.revoked_at) return toRecord(row);
      const revokedAt = iso(this.deps.clock.now());
      await trx.updateTable('api_keys').set({ revoked_at: revokedAt }).where('id', '=', keyId).execute();
      return toRecord({ ...row, revoked_at: revokedAt });
    });
  }

  /**
   * Resolves `Authorization: Bearer <key>`. Missing, malformed, bad-checksum, unknown,
   * revoked and expired keys all get the same `401 svc.api_key.invalid`; a bad checksum
   * is refused before any lookup.
   */
  async authenticate(authorization: string | undefined): Promise<Caller> {
    const match = /^Bearer (\S+)$/i.exec(authorization?.trim() ?? '');
    const key = match?.[1];
    if (!key || !isWellFormedKey(key)) throw invalidKey();
    const row = await this.deps.db
      .selectFrom('api_keys as k')
      .innerJoin('workspaces as w', 'w.id', 'k.workspace_id')
      .select(['k.id', 'k.prefix', 'k.scopes', 'k.expires_at', 'k.revoked_at', 'k.workspace_id', 'w.rate_limit', 'w.rate_window_seconds', 'w.daily_activity_cap'])
      .where('k.hash', '=', hashApiKey(key))
      .executeTakeFirst();
    if (!row || row.revoked_at !== null) throw invalidKey();
    if (row.expires_at !== null && row.expires_at <= iso(this.deps.clock.now())) throw invalidKey();
    return {
      auth: {
        keyId: row.id,
        keyPrefix: row.prefix,
        workspaceId: row.workspace_id,
        scopes: new Set(JSON.parse(row.scopes) as Scope[]),
      },
      rateLimit: { limit: row.rate_limit, windowSeconds: row.rate_window_seconds },
      dailyActivityCap: row.daily_activity_cap,
    };
  }

  identity(auth: AuthContext): { workspaceId: string; scopes: Scope[] } {
    return { workspaceId: auth.workspaceId, scopes: sortScopes(auth.scopes) };
  }
}
