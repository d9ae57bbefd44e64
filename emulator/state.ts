import { sql, type Kysely } from 'kysely';
import * as v from 'valibot';
import type { Database } from '../src/db/schema/index.js';
import { named } from '../src/platform/named-schema.js';
import { TABLES } from '../src/db/schema/index.js';
import { transaction } from '../src/db/transaction.js';
import type { ClockState, EmulatedClock } from '../src/platform/clock.js';
import { laterIds, type IdState } from '../src/platform/ids.js';
import { ServiceError, type FieldError } from '../src/platform/service-error.js';
import { parseOrThrow } from '../src/platform/validation.js';
import type { Service } from '../src/service.js';
import { createSealer } from './seal.js';
import { gateState, type GateOptions } from './state-gate/gate.js';
import { migrateTables } from './state-gate/migrate.js';
import { lastIdOfRows } from './tenancy.js';

export const STATE_FORMAT = 'svc-emulator-state';
export const STATE_VERSION = 1;

/** The whole state: every table's rows, the emulated clock and the id generator. */
export interface StateDocument {
  format: typeof STATE_FORMAT;
  version: typeof STATE_VERSION;
  clock: ClockState;
  ids: IdState;
  tables: Record<string, Record<string, unknown>[]>;
}

/** Tables the state carries: all but the emulator's own bookkeeping. */
const STATE_TABLES = TABLES.filter((t) => t !== 'meta');

/**
 * Retrieval's stored analysis is derived from the chunks, and its term ids follow the
 * order in which ingestion jobs finished, which varies between runs: a state leaves it
 * out (chunks go without terms) so that the same knowledge exports the same document,
 * and chunks are analysed again when first read after an import (decisions, D-307).
 * Built scope indexes hold those ids too, and are built again (D-308).
 */
const DERIVED_TABLES: readonly string[] = ['knowledge_terms', 'knowledge_scope_indexes'];
const DERIVED_COLUMNS: Record<string, Record<string, null>> = { knowledge_chunks: { terms: null, analyzer_id: null } };

const Row = v.record(v.string(), v.unknown());
export const StateDocumentSchema = named(
  'StateDocument',
  v.strictObject({
    format: v.literal(STATE_FORMAT, `must be "${STATE_FORMAT}"`),
    version: v.literal(STATE_VERSION, (issue) =>
      typeof issue.input === 'number' && issue.input > STATE_VERSION
        ? `state version ${issue.input} is newer than this emulator reads (version ${STATE_VERSION}); upgrade svc-emulator`
        : `must be ${STATE_VERSION}`,
    ),
    clock: v.strictObject({ frozen: v.boolean(), value: v.pipe(v.number(), v.finite()) }),
    ids: v.strictObject({ time: v.number(), random: v.pipe(v.string(), v.regex(/^\d+$/)), draws: v.pipe(v.number(), v.integer(), v.minValue(0)) }),
    // An unknown table is named in the error (`tables.<name>`), as a column is.
    tables: v.record(v.picklist(STATE_TABLES, 'unknown table'), v.array(Row)),
  }),
);

// Names valibot's records and strict objects pass over without a word (it never copies
// them, so no prototype is touched): a document holding one as a table or a column name
// would import as if it did not, so it is refused like any other unknown name (D-1082).
const UNSEEN_NAMES: ReadonlySet<string> = new Set(['__proto__', 'prototype', 'constructor']);

const ownNames = (value: unknown): string[] => (value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : []);

/**
 * The first place a state document names a table, a row's column or a top-level field
 * `__proto__`, `prototype` or `constructor`, as a validation error entry; undefined when
 * it names none. Read on the document as given, before any schema copies it.
 */
export function unseenNameFault(input: unknown): FieldError | undefined {
  for (const name of ownNames(input)) if (UNSEEN_NAMES.has(name)) return { field: name, reason: 'unknown field' };
  const tables = (input as { tables?: unknown } | null)?.tables;
  for (const table of ownNames(tables)) {
    if (UNSEEN_NAMES.has(table)) return { field: `tables.${table}`, reason: 'unknown table' };
    const rows = (tables as Record<string, unknown>)[table];
    if (!Array.isArray(rows)) continue;
    for (const [i, row] of rows.entries()) {
      for (const column of ownNames(row)) if (UNSEEN_NAMES.has(column)) return { field: `tables.${table}.${i}.${column}`, reason: 'unknown column' };
    }
  }
  return undefined;
}

// Bytes travel as { $bytes: base64 } so the document stays JSON (the gate reads them back).
function encodeValue(value: unknown): unknown {
  return value instanceof Uint8Array ? { $bytes: Buffer.from(value).toString('base64') } : value;
}

/** Columns that never leave the emulator in the clear: they are sealed in exports. */
export const SEALED_COLUMNS: Record<string, string[]> = { api_keys: ['hash'] };

/** A key hash as the store keeps it (SHA-256, hex). */
export const PLAIN_HASH = /^[0-9a-f]{64}$/;

export interface StateTransferOptions {
  /**
   * Key hashes in the clear instead of sealed: for a state file the operator writes to
   * their own disk (`--export-on-exit`), never for an answer over HTTP.
   */
  plainHashes?: boolean;
}

/** How a state is imported. */
export interface StateImportOptions extends StateTransferOptions {
  /**
   * @internal The prebuilt demo only: written by our own build into the package's `dist/`,
   * which no option or variable points elsewhere, so it is not gated (decisions, D-726).
   */
  trusted?: boolean;
  /** @internal The answers idempotent routes give, by status (see `GateOptions`). */
  replays?: GateOptions['replays'];
  /** @internal Takes the document's id state: the emulator's tenancy restores it alone, not beside other processes (D-208, D-970). */
  restoreIds: (state: IdState) => void;
}

/** Rows as they are inserted: bytes read back from `{ $bytes }`. */
function decodeTables(tables: StateDocument['tables']): StateDocument['tables'] {
  const decode = (value: unknown) =>
    value !== null && typeof value === 'object' && typeof (value as { $bytes?: unknown }).$bytes === 'string'
      ? Buffer.from((value as { $bytes: string }).$bytes, 'base64')
      : value;
  return Object.fromEntries(
    Object.entries(tables).map(([table, rows]) => [table, rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, val]) => [k, decode(val)])))]),
  );
}

/** Reads the whole state in one transaction, rows in a stable order; key hashes sealed. */
export async function exportState(service: Service, clock: EmulatedClock, options: StateTransferOptions = {}): Promise<StateDocument> {
  const sealer = options.plainHashes ? { seal: (value: string) => value } : createSealer(service.settings.secret);
  await service.flush();
  // The clock and the ids as of the rows' snapshot (D-1137): taken before it, a write
  // committed in between held an id the imported stream would give again.
  let streams: { clock: ClockState; ids: IdState } | undefined;
  const tables = await readTables(service.db, sealer, () => (streams = { clock: clock.snapshot(), ids: service.ids.snapshot() }));
  return { format: STATE_FORMAT, version: STATE_VERSION, clock: streams!.clock, ids: streams!.ids, tables };
}

/**
 * Every state table's rows as of one moment, in a stable order, bytes as `{ $bytes }`;
 * `sealer` seals key hashes. One snapshot for all tables (D-1134): PostgreSQL's default
 * isolation gives each statement its own, so a source added by another process between
 * two tables' reads put its stored document in the state without the source, a state
 * the import refuses. SQLite's and PGlite's transactions are snapshots already.
 * `atSnapshot` runs inside that transaction, once the rows are read.
 */
export async function readTables(db: Kysely<Database>, sealer: { seal(value: string): string }, atSnapshot?: () => void): Promise<StateDocument['tables']> {
  const tables: StateDocument['tables'] = {};
  await db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      for (const table of STATE_TABLES) {
        if (DERIVED_TABLES.includes(table)) continue;
        const derived = DERIVED_COLUMNS[table] ?? {};
        const selected = (
          (await trx
            .selectFrom(table as 'jobs')
            .selectAll()
            .execute()) as Record<string, unknown>[]
        ).map((r) => ({ ...r, ...derived }));
        // Each row's sort key once, not once per comparison: rows hold embeddings.
        const keyed = selected.map((r) => ({ r, key: JSON.stringify(r, Object.keys(r).sort()) }));
        keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
        const rows = keyed.map(({ r }) => r);
        const sealed = SEALED_COLUMNS[table] ?? [];
        tables[table] = rows.map((r) =>
          Object.fromEntries(Object.entries(r).map(([k, val]) => [k, sealed.includes(k) && typeof val === 'string' ? sealer.seal(val) : encodeValue(val)])),
        );
      }
      // Still inside the transaction: on the one connection of a store this process owns,
      // no write has come between the rows read and now.
      atSnapshot?.();
    });
  return tables;
}

const INSERT_BATCH = 100;

/** Times an import runs again when the database aborts it to break a deadlock with another process's writer (D-1135). */
const IMPORT_ATTEMPTS = 5;

/**
 * The state tables emptied and filled with `tables`, in one transaction. Sharing the
 * store, it first locks every state table against writes (reads go on, of the old
 * state, until it commits), the workspaces first as writers take them (D-1127), so that
 * a writer in another process finishes before it or starts after it; one the database
 * still finds in a deadlock with it, it runs again (D-1135).
 */
async function replaceTables(service: Service, tables: Partial<Record<string, Record<string, unknown>[]>>, restore: Restore): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    let undo: (() => void) | undefined;
    try {
      await transaction(service.db, async (trx) => {
        if (service.coherence.shared) {
          const order = ['workspaces', ...STATE_TABLES.filter((t) => t !== 'workspaces')];
          await sql`LOCK TABLE ${sql.join(order.map((t) => sql.table(t)))} IN EXCLUSIVE MODE`.execute(trx);
        }
        for (const table of [...STATE_TABLES].reverse()) await trx.deleteFrom(table as 'jobs').execute();
        for (const table of STATE_TABLES) {
          const rows = tables[table] ?? [];
          for (let i = 0; i < rows.length; i += INSERT_BATCH) {
            try {
              await trx
                .insertInto(table as 'jobs')
                .values(rows.slice(i, i + INSERT_BATCH) as never)
                .execute();
            } catch (error) {
              if (service.store.conflicted(error)) throw error;
              throw new ServiceError('svc.request.validation_failed', {
                errors: [{ field: `tables.${table}`, reason: 'rows do not fit the table' }],
              });
            }
          }
        }
        // Other processes drop what they cached of the old state on their next request.
        await service.coherence.changed(trx, { replaced: true });
        // The clock and the ids last, before the commit (D-1137): a write waiting for the
        // store runs after the commit and draws from the restored streams. Restored after
        // it, a write that slipped in between drew an id the restored stream gave again.
        undo = restore();
      });
      return;
    } catch (error) {
      undo?.();
      if (attempt >= IMPORT_ATTEMPTS || !service.store.conflicted(error)) throw error;
    }
  }
}

/** Restores the state document's clock and ids; answers how to put back what was there. */
type Restore = () => () => void;

/**
 * Replaces the whole state with `input` in one transaction; on any failure nothing
 * changes. Background jobs stop first and resume afterwards. Key hashes must be sealed
 * by this emulator's secret, or, with `plainHashes`, may also be in the clear.
 */
export async function importState(service: Service, clock: EmulatedClock, input: unknown, options: StateImportOptions): Promise<void> {
  const unseen = unseenNameFault(input);
  if (unseen) throw new ServiceError('svc.request.validation_failed', { errors: [unseen] });
  const parsed = parseOrThrow(StateDocumentSchema, input, 'svc.request.validation_failed');
  // The caller's document is left as it was: hashes are opened in a copy of the rows.
  const doc = { ...parsed, tables: migrateTables(parsed.tables) };
  const sealer = createSealer(service.settings.secret);
  for (const [table, columns] of Object.entries(SEALED_COLUMNS)) {
    doc.tables[table] = (doc.tables[table] ?? []).map((row) => ({ ...row }));
    for (const [i, row] of doc.tables[table]!.entries()) {
      for (const column of columns) {
        const value = row[column];
        const opened = typeof value !== 'string' ? undefined : options.plainHashes && PLAIN_HASH.test(value) ? value : sealer.open(value);
        if (opened === undefined) {
          // A hash in the clear is a file `--export-on-exit` wrote (D-177): no seed opens it here.
          const reason =
            typeof value === 'string' && PLAIN_HASH.test(value)
              ? 'a key hash in the clear, as --export-on-exit and exportState({ plainHashes: true }) write it: this import takes hashes sealed by this emulator only; import such a file with --import at start, or importState(doc, { plainHashes: true })'
              : 'sealed by another emulator: import into one started with the same --seed, or on the same --db (SQLite file or PostgreSQL database)';
          throw new ServiceError('svc.request.validation_failed', { errors: [{ field: `tables.${table}.${i}.${column}`, reason }] });
        }
        row[column] = opened;
      }
    }
  }
  // Every row as the service itself would have written it, or nothing changes (D-720).
  const tables = options.trusted ? decodeTables(doc.tables) : gateState(doc, { ...(options.replays && { replays: options.replays }) });
  await service.pause();
  // Counters in memory belong to the state being replaced.
  service.workspaces.activity.forget();
  try {
    // Sharing the store, other processes finish the jobs they run first and take no new
    // one until the new state is in (decisions, D-209).
    await service.jobs.whileQuiet(() =>
      replaceTables(service, tables, () => {
        const before = { clock: clock.snapshot(), ids: service.ids.snapshot() };
        clock.restore(doc.clock);
        // Alone on the store, the ids are restored; beside others each keeps its stream (D-208).
        // Never behind an id the rows hold: such a stream would draw it again (D-1198).
        const last = lastIdOfRows(tables);
        options.restoreIds(last ? laterIds(doc.ids, last) : doc.ids);
        return () => {
          clock.restore(before.clock);
          options.restoreIds(before.ids);
        };
      }),
    );
    await service.rateLimiter.clear();
    for (const hook of service.afterImport) await hook();
  } finally {
    await service.start();
  }
}
