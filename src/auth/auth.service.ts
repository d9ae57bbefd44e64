import type { Kysely } from 'kysely';
import type { Database, Db } from '../db/schema/index.js';
import { afterCommit, transaction } from '../db/transaction.js';
import type { ApiKeyTable } from '../db/schema/core.js';
import { lockWorkspaceRow } from '../db/row-locks.js';
import type { Clock } from '../platform/clock.js';
import type { Coherence } from '../platform/coherence.js';
import type { AuthContext } from '../platform/context.js';
import type { IdGenerator } from '../platform/ids.js';
import { paginate, type Cursors, type ListPage, type ListParams } from '../platform/pagination.js';
import { SCOPES, type Scope } from '../platform/scopes.js';
import { ServiceError, fieldError } from '../platform/service-error.js';
import { isStoredTimestamp, storedJson, unreadableStored } from '../platform/stored.js';
import { iso, parseIso } from '../platform/time.js';
import { formatApiKey, hashApiKey, isWellFormedKey, keyPrefix, type KeyEnv } from './api-key.js';
import { StoredScopesSchema, type KeyCreateInput } from './auth.schema.js';

/** What keys need of workspaces: that one exists (else `404 svc.tenant.not_found`). */
export interface WorkspaceLookup {
  getWorkspaceOrThrow(workspaceId: string, db?: Db): Promise<unknown>;
}

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
    scopes: storedJson(StoredScopesSchema, row.scopes, { table: 'api_keys', row: row.id, column: 'scopes' }),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

interface CachedKey {
  revokedAt: string | null;
  /** Epoch milliseconds. */
  expiresAt: number | null;
  caller: Caller;
}

const invalidKey = () => new ServiceError('svc.api_key.invalid');

/**
 * API keys: creation (secret shown once, stored as SHA-256), listing, revocation and
 * the authentication of every `/v1` request.
 */
export class AuthService {
  /**
   * Keys already authenticated, by bearer token, so a hit skips checksum, hash and
   * lookup; cleared on any write to keys or workspaces, in this process or (through
   * coherence) another sharing the store, so never stale. Held only in memory, like
   * the request itself; the store keeps hashes only.
   */
  readonly #cache = new Map<string, CachedKey>();

  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      clock: Clock;
      ids: IdGenerator;
      cursors: Cursors;
      workspaces: WorkspaceLookup;
      /** Told inside every key write, so that other processes drop their cached keys (D-203). */
      coherence?: Coherence | undefined;
    },
  ) {}

  /** Forgets every cached key (after a key or workspace write, or a state import). */
  invalidate(): void {
    this.#cache.clear();
  }

  /**
   * Creates a key. `options.secret` lets fixtures use a literal, well-formed key so that
   * demos can print it; the console route never passes one.
   */
  async createKey(workspaceId: string, input: KeyCreateInput, options: { secret?: string | undefined } = {}): Promise<KeyRecord & { secret: string }> {
    const now = this.deps.clock.now();
    const expiresMs = input.expiresAt ? parseIso(input.expiresAt)! : undefined;
    if (expiresMs !== undefined && expiresMs <= now) {
      throw fieldError('svc.request.validation_failed', 'expiresAt', 'must be in the future');
    }
    return transaction(this.deps.db, async (trx) => {
      // The workspace's row, locked (D-1140): creations in two processes count one after the
      // other, so that neither makes a third active key, and one meeting the workspace's deletion finds it gone.
      if (!(await lockWorkspaceRow(trx, workspaceId))) throw new ServiceError('svc.tenant.not_found');
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
      let secret = options.secret ?? formatApiKey(input.env, this.deps.ids.secret(32));
      // A drawn secret some key already has (an imported id state that replays its draws)
      // is drawn again: a second key answering to it would be a 500 on the unique hash.
      while (!options.secret && (await trx.selectFrom('api_keys').select('id').where('hash', '=', hashApiKey(secret)).executeTakeFirst())) {
        secret = formatApiKey(input.env, this.deps.ids.secret(32));
      }
      if (options.secret && (!isWellFormedKey(secret) || !secret.startsWith(`svc_${input.env}_`))) {
        throw fieldError('svc.request.validation_failed', 'secret', 'must be a well-formed key of that env');
      }
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
      await this.deps.coherence?.changed(trx);
      afterCommit(trx, () => this.invalidate());
      return { ...toRecord(row), secret };
    });
  }

  async listKeys(workspaceId: string, page: ListParams): Promise<ListPage<KeyRecord>> {
    await this.deps.workspaces.getWorkspaceOrThrow(workspaceId);
    const query = this.deps.db.selectFrom('api_keys').selectAll().where('workspace_id', '=', workspaceId);
    return paginate(this.deps.cursors, `${workspaceId}:keys`, page, query, toRecord);
  }

  async revokeKey(workspaceId: string, keyId: string): Promise<KeyRecord> {
    return transaction(this.deps.db, async (trx) => {
      await this.deps.workspaces.getWorkspaceOrThrow(workspaceId, trx);
      const row = await trx.selectFrom('api_keys').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', keyId).executeTakeFirst();
      if (!row)
        throw new ServiceError('svc.resource.not_found', {
          detail: { en: 'No such key in this workspace.', es: 'No existe esa clave en este espacio de trabajo.' },
        });
      if (row.revoked_at) return toRecord(row);
      const revokedAt = iso(this.deps.clock.now());
      await trx.updateTable('api_keys').set({ revoked_at: revokedAt }).where('id', '=', keyId).execute();
      await this.deps.coherence?.changed(trx);
      afterCommit(trx, () => this.invalidate());
      return toRecord({ ...row, revoked_at: revokedAt });
    });
  }

  /**
   * Resolves `Authorization: Bearer <key>` (the scheme in any case). Missing, malformed, bad-checksum, unknown,
   * revoked and expired keys all get the same `401 svc.api_key.invalid`; a bad checksum
   * is refused before any lookup.
   */
  authenticate(authorization: string | undefined): Caller | Promise<Caller> {
    // The scheme is a case-insensitive token (RFC 9110, 11.1): `bearer <key>` is the same credential.
    const key = authorization?.slice(0, 7).toLowerCase() === 'bearer ' ? authorization.slice(7).trim() : undefined;
    if (!key) throw invalidKey();
    const cached = this.#cache.get(key);
    // A hit answers synchronously: this runs on every request.
    return cached ? this.#check(cached) : this.#lookup(key);
  }

  async #lookup(key: string): Promise<Caller> {
    if (!isWellFormedKey(key)) throw invalidKey();
    const found = await this.deps.db
      .selectFrom('api_keys as k')
      .innerJoin('workspaces as w', 'w.id', 'k.workspace_id')
      .select([
        'k.id',
        'k.prefix',
        'k.scopes',
        'k.expires_at',
        'k.revoked_at',
        'k.workspace_id',
        'w.rate_limit',
        'w.rate_window_seconds',
        'w.daily_activity_cap',
      ])
      .where('k.hash', '=', hashApiKey(key))
      .executeTakeFirst();
    if (!found) throw invalidKey();
    // A row this service did not write answers a problem naming the key (D-722).
    if (found.expires_at !== null && !isStoredTimestamp(found.expires_at))
      throw unreadableStored({ table: 'api_keys', row: found.id, column: 'expires_at' }, 'not a timestamp');
    const entry: CachedKey = {
      revokedAt: found.revoked_at,
      expiresAt: found.expires_at === null ? null : Date.parse(found.expires_at),
      caller: {
        auth: {
          keyId: found.id,
          keyPrefix: found.prefix,
          workspaceId: found.workspace_id,
          scopes: new Set(storedJson(StoredScopesSchema, found.scopes, { table: 'api_keys', row: found.id, column: 'scopes' })),
        },
        rateLimit: { limit: found.rate_limit, windowSeconds: found.rate_window_seconds },
        dailyActivityCap: found.daily_activity_cap,
      },
    };
    this.#cache.set(key, entry);
    return this.#check(entry);
  }

  #check(entry: CachedKey): Caller {
    if (entry.revokedAt !== null) throw invalidKey();
    if (entry.expiresAt !== null && entry.expiresAt <= this.deps.clock.now()) throw invalidKey();
    return entry.caller;
  }

  identity(auth: AuthContext): { workspaceId: string; scopes: Scope[] } {
    // Scopes are stored in SCOPES order already, and the set iterates in that order.
    return { workspaceId: auth.workspaceId, scopes: Array.from(auth.scopes) };
  }
}
