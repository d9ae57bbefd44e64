import type { Context } from 'hono';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../src/db/schema/index.js';
import { transaction } from '../src/db/transaction.js';
import type { FaultTable } from '../src/db/schema/shared.js';
import type { Coherence } from '../src/platform/coherence.js';
import type { AppEnv } from '../src/platform/context.js';
import type { ErrorCode } from '../src/platform/error-codes.js';
import type { IdGenerator } from '../src/platform/ids.js';
import type { IngestFailureCode } from '../src/platform/ingest-failures.js';
import { iso } from '../src/platform/time.js';
import { faultFields, faultProblem, pathMatcher, type Fault, type FaultInput, type FaultRules, type IngestFault, type IngestFaultQueue } from './faults.js';

type Cached = Fault & { pattern: ((path: string) => boolean) | undefined };

function toFault(row: FaultTable): Fault {
  return {
    id: row.id,
    match: { ...(row.method !== null && { method: row.method }), ...(row.path !== null && { path: row.path }) },
    status: Number(row.status),
    code: row.code as ErrorCode,
    remaining: row.remaining === null ? null : Number(row.remaining),
  };
}

/**
 * Request faults in the store, for processes sharing it (decisions, D-207). Each process
 * keeps the list in memory (a request that matches none asks nothing) and reloads it
 * when coherence says it changed; a fault with `times` is counted down in the store, so
 * that `times: 3` fails three requests whichever processes get them.
 */
export class SharedFaults implements FaultRules {
  #faults: Cached[] = [];

  constructor(
    private readonly db: Kysely<Database>,
    private readonly ids: IdGenerator,
    private readonly coherence: Coherence,
    private readonly clock: { now(): number },
  ) {}

  /** Reads the faults in force (at start and whenever another process changed them). */
  async reload(): Promise<void> {
    const rows = await this.db.selectFrom('faults').selectAll().where('kind', '=', 'request').orderBy('created_at').orderBy('id').execute();
    this.#faults = rows.map((r) => {
      const fault = toFault(r);
      return { ...fault, pattern: fault.match.path ? pathMatcher(fault.match.path) : undefined };
    });
  }

  async add(input: FaultInput): Promise<Fault> {
    const { code, status } = faultFields(input);
    const row: FaultTable = {
      id: this.ids.next('flt'),
      kind: 'request',
      method: input.match.method ?? null,
      path: input.match.path ?? null,
      status,
      code,
      remaining: input.times ?? null,
      created_at: iso(this.clock.now()),
    };
    await transaction(this.db, async (trx) => {
      await trx.insertInto('faults').values(row).execute();
      await this.coherence.changed(trx);
    });
    await this.reload();
    return toFault(row);
  }

  async list(): Promise<Fault[]> {
    await this.reload();
    return this.#faults.map(({ pattern: _pattern, ...fault }) => ({ ...fault, match: { ...fault.match } }));
  }

  async clear(): Promise<number> {
    const cleared = await transaction(this.db, async (trx) => {
      const deleted = await trx.deleteFrom('faults').where('kind', '=', 'request').executeTakeFirst();
      await this.coherence.changed(trx);
      return Number(deleted.numDeletedRows);
    });
    this.#faults = [];
    return cleared;
  }

  /** As `clear`, for one fault: every process drops it from memory on its next request (coherence). */
  async remove(id: string): Promise<Fault | undefined> {
    const removed = await transaction(this.db, async (trx) => {
      const row = await trx.deleteFrom('faults').where('id', '=', id).where('kind', '=', 'request').returningAll().executeTakeFirst();
      if (row) await this.coherence.changed(trx);
      return row;
    });
    this.#faults = this.#faults.filter((f) => f.id !== id);
    return removed && toFault(removed);
  }

  intercept(c: Context<AppEnv>): undefined | Promise<undefined> {
    if (this.#faults.length === 0 || c.req.path.startsWith('/_emulator')) return undefined;
    return this.#take(c.req.method, c.req.path, 0);
  }

  async #take(method: string, path: string, from: number): Promise<undefined> {
    for (let i = from; i < this.#faults.length; i++) {
      const fault = this.#faults[i]!;
      if ((fault.match.method && fault.match.method !== method) || (fault.pattern && !fault.pattern(path))) continue;
      if (fault.remaining === null) throw faultProblem(fault);
      if (await this.#spend(fault.id)) throw faultProblem(fault);
      // Used up meanwhile by another process: the next matching one, if any.
    }
    return undefined;
  }

  /** Counts one use of a fault with `times`; false when none was left. The last use removes it. */
  async #spend(id: string): Promise<boolean> {
    return transaction(this.db, async (trx) => {
      const row = await trx
        .updateTable('faults')
        .set((eb) => ({ remaining: eb('remaining', '-', 1) }))
        .where('id', '=', id)
        .where('remaining', '>', 0)
        .returning('remaining')
        .executeTakeFirst();
      if (!row || Number(row.remaining) > 0) return row !== undefined;
      await trx.deleteFrom('faults').where('id', '=', id).execute();
      await this.coherence.changed(trx);
      this.#faults = this.#faults.filter((f) => f.id !== id);
      return true;
    });
  }
}

/** Queued ingestion failures in the store: whichever process ingests next takes the next one. */
export class SharedIngestFaults implements IngestFaultQueue {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: { now(): number },
  ) {}

  async add(id: string, code: IngestFailureCode, times: number): Promise<IngestFault> {
    await this.db
      .insertInto('faults')
      .values({ id, kind: 'ingest', method: null, path: null, status: null, code, remaining: times, created_at: iso(this.clock.now()) })
      .execute();
    return { id, ingest: code, remaining: times };
  }

  take = async (): Promise<IngestFailureCode | undefined> => {
    return this.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ id: string; code: string; remaining: number }>`
        UPDATE faults SET remaining = remaining - 1
        WHERE id = (SELECT id FROM faults WHERE kind = 'ingest' AND remaining > 0 ORDER BY created_at, id LIMIT 1 FOR UPDATE)
        RETURNING id, code, remaining`.execute(trx);
      const taken = rows[0];
      if (!taken) return undefined;
      if (Number(taken.remaining) <= 0) await trx.deleteFrom('faults').where('id', '=', taken.id).execute();
      return taken.code as IngestFailureCode;
    });
  };

  /** The entries not spent yet, in the order `take` takes them. */
  async list(): Promise<IngestFault[]> {
    const rows = await this.db
      .selectFrom('faults')
      .select(['id', 'code', 'remaining'])
      .where('kind', '=', 'ingest')
      .where('remaining', '>', 0)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => ({ id: row.id, ingest: row.code as IngestFailureCode, remaining: Number(row.remaining) }));
  }

  async clear(): Promise<number> {
    // A row is removed by the take that spends it: every one left still fails an ingestion.
    const deleted = await this.db.deleteFrom('faults').where('kind', '=', 'ingest').executeTakeFirst();
    return Number(deleted.numDeletedRows);
  }

  /** As `clear`, for one entry: no process keeps the queue in memory, the next take reads the store. */
  async remove(id: string): Promise<IngestFault | undefined> {
    const row = await this.db
      .deleteFrom('faults')
      .where('id', '=', id)
      .where('kind', '=', 'ingest')
      .where('remaining', '>', 0)
      .returning(['id', 'code', 'remaining'])
      .executeTakeFirst();
    return row && { id: row.id, ingest: row.code as IngestFailureCode, remaining: Number(row.remaining) };
  }
}
