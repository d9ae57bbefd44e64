import type { Kysely } from 'kysely';
import * as v from 'valibot';
import type { Database } from '../db/schema/index.js';
import type { IdempotencyTable } from '../db/schema/core.js';
import type { Clock } from './clock.js';
import { sha256Hex } from './crypto.js';
import { storedJson, unreadableStored } from './stored.js';
import { DAY, iso } from './time.js';

/** The statuses a route under `Idempotency-Key` answers with and records (its 2xx answers). */
export const REPLAYED_STATUSES: readonly number[] = [200, 201, 202];

/**
 * The headers a completed record holds: what the route wrapper sets on the JSON answer
 * it records, nothing else. The length is the body's, computed when it is sent; framing,
 * cookies and other content types are never replayed (decisions, D-722).
 */
export const StoredReplayHeadersSchema = v.strictObject({ 'content-type': v.literal('application/json', 'must be application/json') });

/** Whether a stored body is what a recorded answer holds: JSON text. */
export function isJsonText(body: unknown): body is string {
  if (typeof body !== 'string') return false;
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}

/** A completed record as it is replayed: checked first, so a row this service did not write answers a problem naming it. */
function storedReplay(row: IdempotencyTable): { status: number; headers: Record<string, string>; body: string } {
  const at = (column: string) => ({ table: 'idempotency', row: `${row.key_id}/${row.idem_key}`, column });
  if (row.status === null || !REPLAYED_STATUSES.includes(row.status)) throw unreadableStored(at('status'), `must be one of ${REPLAYED_STATUSES.join(', ')}`);
  const headers = storedJson(StoredReplayHeadersSchema, row.headers, at('headers'));
  if (!isJsonText(row.body)) throw unreadableStored(at('body'), 'must be JSON text');
  return { status: row.status, headers, body: row.body };
}

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

/** Who runs requests when processes share the store: this process, and whether another is alive. */
export interface RequestOwner {
  readonly id: string;
  alive(id: string): Promise<boolean>;
}

const RUNNING = 'running';

/**
 * Idempotency records, scoped to the API key and kept 24 hours of emulated time. A
 * record is claimed `running` by an insert that only one request can win (whatever
 * process it reaches), completed with the first 2xx answer, and dropped when the first
 * request fails (decisions, D-012 to D-014). With an `owner` (processes sharing the
 * store) the claim names its process, `running:<id>`, so that the claim of a process
 * that died, or one this process lost track of (the store went away before the answer
 * was written), is taken over instead of answering 409 for a day (D-205).
 */
export class IdempotencyStore {
  readonly #running: string;
  /**
   * Requests of this process that may hold a key's claim, counted from before their
   * insert until their answer is written: a claim of ours is abandoned only when this
   * count is 0, so neither the moment between another request's insert and its return
   * nor the one before its completion is written reads as abandoned (D-1040).
   */
  readonly #inFlight = new Map<string, number>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly owner?: RequestOwner,
  ) {
    this.#running = owner ? `${RUNNING}:${owner.id}` : RUNNING;
  }

  async begin(workspaceId: string, keyId: string, idemKey: string, fingerprint: string): Promise<IdempotencyOutcome> {
    const now = this.clock.now();
    const slot = `${keyId}\n${idemKey}`;
    await this.db
      .deleteFrom('idempotency')
      .where('key_id', '=', keyId)
      .where('idem_key', '=', idemKey)
      .where('created_at', '<=', iso(now - RETENTION_MS))
      .execute();
    this.#hold(slot);
    const claimed = await this.db
      .insertInto('idempotency')
      .values({
        workspace_id: workspaceId,
        key_id: keyId,
        idem_key: idemKey,
        fingerprint,
        state: this.#running,
        status: null,
        headers: null,
        body: null,
        created_at: iso(now),
      })
      .onConflict((oc) => oc.columns(['key_id', 'idem_key']).doNothing())
      .returning('key_id')
      .executeTakeFirst()
      .catch((error: unknown) => {
        this.#release(slot);
        throw error;
      });
    if (claimed) return { kind: 'new' };
    this.#release(slot);
    const row = await this.db.selectFrom('idempotency').selectAll().where('key_id', '=', keyId).where('idem_key', '=', idemKey).executeTakeFirst();
    if (!row) return this.begin(workspaceId, keyId, idemKey, fingerprint);
    if (row.state !== 'done' && (await this.#abandoned(row.state, keyId, idemKey))) {
      await this.db.deleteFrom('idempotency').where('key_id', '=', keyId).where('idem_key', '=', idemKey).where('state', '=', row.state).execute();
      return this.begin(workspaceId, keyId, idemKey, fingerprint);
    }
    if (row.fingerprint !== fingerprint) return { kind: 'conflict' };
    if (row.state !== 'done') return { kind: 'running' };
    return { kind: 'replay', ...storedReplay(row) };
  }

  /** A claim nobody will complete: its process is gone, or it is ours and no request of ours runs it. */
  async #abandoned(state: string, keyId: string, idemKey: string): Promise<boolean> {
    if (!this.owner) return false;
    if (state === this.#running) return !this.#inFlight.has(`${keyId}\n${idemKey}`);
    const id = state.startsWith(`${RUNNING}:`) ? state.slice(RUNNING.length + 1) : undefined;
    return id === undefined || !(await this.owner.alive(id));
  }

  #hold(slot: string): void {
    this.#inFlight.set(slot, (this.#inFlight.get(slot) ?? 0) + 1);
  }

  #release(slot: string): void {
    const left = (this.#inFlight.get(slot) ?? 1) - 1;
    if (left > 0) this.#inFlight.set(slot, left);
    else this.#inFlight.delete(slot);
  }

  /** Records the answer of a claim this request won; when the write fails the caller abandons the claim, which releases it. */
  async complete(keyId: string, idemKey: string, status: number, headers: Record<string, string>, body: string): Promise<void> {
    await this.db
      .updateTable('idempotency')
      .set({ state: 'done', status, headers: JSON.stringify(headers), body })
      .where('key_id', '=', keyId)
      .where('idem_key', '=', idemKey)
      .where('state', '=', this.#running)
      .execute();
    this.#release(`${keyId}\n${idemKey}`);
  }

  async abandon(keyId: string, idemKey: string): Promise<void> {
    try {
      await this.db.deleteFrom('idempotency').where('key_id', '=', keyId).where('idem_key', '=', idemKey).where('state', '=', this.#running).execute();
    } finally {
      this.#release(`${keyId}\n${idemKey}`);
    }
  }

  /**
   * Requests that were running when the process stopped never answered: forget them.
   * Sharing the store, only this process's own claims (others may be answering theirs).
   */
  async forgetUnfinished(): Promise<void> {
    await this.db.deleteFrom('idempotency').where('state', '=', this.#running).execute();
    this.#inFlight.clear();
  }
}
