import type { Kysely } from 'kysely';
import type { Database } from '../db/schema/index.js';
import type { Clock } from './clock.js';
import { sha256Hex } from './crypto.js';
import { DAY, iso } from './time.js';

/** Stable JSON: object keys sorted, so key order and whitespace never change a fingerprint. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** Fingerprint of a multipart body by its fields, independent of the boundary. */
export async function formFingerprint(form: FormData): Promise<string> {
  const parts: string[] = [];
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') parts.push(`${name}=${value}`);
    else parts.push(`${name}=file:${value.name}:${value.type}:${sha256Hex(new Uint8Array(await value.arrayBuffer()))}`);
  }
  return sha256Hex(parts.sort().join('\n'));
}

export type IdempotencyOutcome =
  | { kind: 'new' }
  | { kind: 'replay'; status: number; headers: Record<string, string>; body: string }
  | { kind: 'conflict' }
  | { kind: 'running' };

const RETENTION_MS = DAY;

/**
 * Idempotency records, scoped to the API key and kept 24 hours of emulated time. A
 * record is claimed `running` by an insert that only one request can win, completed
 * with the first 2xx answer, and dropped when the first request fails (decisions, D-012 to D-014).
 */
export class IdempotencyStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async begin(workspaceId: string, keyId: string, idemKey: string, fingerprint: string): Promise<IdempotencyOutcome> {
    const now = this.clock.now();
    await this.db
      .deleteFrom('idempotency')
      .where('key_id', '=', keyId)
      .where('idem_key', '=', idemKey)
      .where('created_at', '<=', iso(now - RETENTION_MS))
      .execute();
    const claimed = await this.db
      .insertInto('idempotency')
      .values({ workspace_id: workspaceId, key_id: keyId, idem_key: idemKey, fingerprint, state: 'running', status: null, headers: null, body: null, created_at: iso(now) })
      .onConflict((oc) => oc.columns(['key_id', 'idem_key']).doNothing())
      .returning('key_id')
      .executeTakeFirst();
    if (claimed) return { kind: 'new' };
    const row = await this.db
      .selectFrom('idempotency')
      .selectAll()
      .where('key_id', '=', keyId)
      .where('idem_key', '=', idemKey)
      .executeTakeFirst();
    if (!row) return this.begin(workspaceId, keyId, idemKey, fingerprint);
    if (row.fingerprint !== fingerprint) return { kind: 'conflict' };
    if (row.state !== 'done') return { kind: 'running' };
    return { kind: 'replay', status: row.status ?? 200, headers: JSON.parse(row.headers ?? '{}'), body: row.body ?? '' };
  }

  async complete(keyId: string, idemKey: string, status: number, headers: Record<string, string>, body: string): Promise<void> {
    await this.db
      .updateTable('idempotency')
      .set({ state: 'done', status, headers: JSON.stringify(headers), body })
      .where('key_id', '=', keyId)
      .where('idem_key', '=', idemKey)
      .execute();
  }

  async abandon(keyId: string, idemKey: string): Promise<void> {
    await this.db.deleteFrom('idempotency').where('key_id', '=', keyId).where('idem_key', '=', idemKey).execute();
  }

  /** Requests that were running when the process stopped never answered: forget them. */
  async forgetUnfinished(): Promise<void> {
    await this.db.deleteFrom('idempotency').where('state', '=', 'running').execute();
  }
}
