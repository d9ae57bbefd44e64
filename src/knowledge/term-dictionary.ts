import type { Kysely, Transaction } from 'kysely';
import { prepareInsert, prepareQuery, type PreparedInsert, type PreparedQuery } from '../db/prepared.js';
import { lockWorkspaceRows } from '../db/row-locks.js';
import type { Database, Db } from '../db/schema/index.js';
import { nextTurn } from '../platform/turn.js';

const INSERT_BATCH = 500;
/** New terms per transaction when a commit brings more than this many (D-1158). */
export const AHEAD_SLICE = 20_000;

interface Loaded {
  terms: Map<string, number>;
  /** The next free id. */
  next: number;
  /** How many times the state had been replaced when it was read (D-1139). */
  replacements: number;
}

/**
 * Each workspace's term dictionary (`knowledge_terms`): a term's id, given once and
 * never changed or reused, so that a chunk stores its terms as ids and an index is
 * assembled from them without a string lookup (decisions, D-301). Kept in memory after
 * the first read; ingestion adds terms in its own transaction.
 */
export class TermDictionary {
  /** Dictionaries read completely; a read in flight is not shared (see `#load`). */
  readonly #workspaces = new Map<string, Loaded>();
  #generation = 0;
  /** Every ingested source runs these: compiled once. */
  readonly #insert: PreparedInsert<{ workspace_id: string; term: string; id: number }>;
  readonly #newer: PreparedQuery<{ workspaceId: string; next: number }, { term: string; id: number | string }>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: {
      /** Other processes add terms to this store too (decisions, D-203). */
      shared?: boolean | undefined;
      /** How many times another process replaced the state, as `db` reads it (`Coherence.replacements`). */
      replacements?: ((db: Db) => Promise<number>) | undefined;
    } = {},
  ) {
    this.#insert = prepareInsert(db, ['workspace_id', 'term', 'id'], INSERT_BATCH, (rows) => db.insertInto('knowledge_terms').values(rows));
    this.#newer = prepareQuery(db, (p) =>
      db.selectFrom('knowledge_terms').select(['term', 'id']).where('workspace_id', '=', p('workspaceId')).where('id', '>=', p('next')),
    );
  }

  /**
   * At the start of a transaction that may add terms to these workspaces: on a shared
   * store, takes their rows' locks now, in id order, before the transaction holds any
   * other row of theirs (D-1127). Alone, nothing.
   */
  async lockFor(trx: Transaction<Database>, workspaceIds: Iterable<string>): Promise<void> {
    if (this.options.shared) await lockWorkspaceRows(trx, workspaceIds);
  }

  /** The workspace's dictionary as it stands (with a shared store, also what other processes added). */
  async get(workspaceId: string): Promise<ReadonlyMap<string, number>> {
    const loaded = await this.#load(this.db, workspaceId);
    if (this.options.shared) await this.#readNewer(this.db, workspaceId, loaded);
    return loaded.terms;
  }

  /**
   * Ids for `terms`, giving the next ones to terms never seen, written in the caller's
   * transaction. When that transaction fails, call `forget`: memory may hold ids the
   * store never got.
   */
  async assign(trx: Transaction<Database>, workspaceId: string, terms: readonly string[]): Promise<ReadonlyMap<string, number>> {
    const loaded = await this.#current(trx, workspaceId);
    // Usually every term is known (`assignAhead` gave the new ones): no set of them is made.
    let known = true;
    for (const t of terms) {
      if (loaded.terms.has(t)) continue;
      known = false;
      break;
    }
    if (known) return loaded.terms;
    let missing = [...new Set(terms)].filter((t) => !loaded.terms.has(t));
    // Processes sharing the store give ids one at a time per workspace: the workspace's
    // row stays locked until this transaction ends, and what the previous holder added is
    // read after it. A writer usually took it already (`lockFor`): then this is a no-op.
    if (this.options.shared) await lockWorkspaceRows(trx, [workspaceId]);
    // Another process sharing the store may have added terms since this one read them.
    await this.#readNewer(trx, workspaceId, loaded);
    missing = missing.filter((t) => !loaded.terms.has(t));
    const rows = missing.map((term) => ({ workspace_id: workspaceId, term, id: loaded.next++ }));
    for (const row of rows) loaded.terms.set(row.term, row.id);
    await this.#insert.execute(rows, trx);
    return loaded.terms;
  }

  /**
   * Gives ids to the terms of `terms` the dictionary lacks ahead of the commit that stores
   * them, when there are more than `AHEAD_SLICE`: that many at a time, each slice in a
   * transaction of its own (`transaction`, which takes the locks `assign` needs), with a
   * turn of the event loop between two (D-1158). The same ids, in the same order, as the
   * commit's own `assign` gives them; fewer new terms are left to it. An id given here
   * and then never used by a chunk (the commit failed, or found its source gone) costs a
   * row: ids are never reused anyway.
   */
  async assignAhead(
    workspaceId: string,
    terms: readonly string[],
    transaction: (work: (trx: Transaction<Database>) => Promise<unknown>) => Promise<unknown>,
  ): Promise<void> {
    const loaded = await this.#load(this.db, workspaceId);
    const missing = [...new Set(terms)].filter((t) => !loaded.terms.has(t));
    if (missing.length <= AHEAD_SLICE) return;
    for (let i = 0; i < missing.length; i += AHEAD_SLICE) {
      if (i > 0) await nextTurn();
      await transaction((trx) => this.assign(trx, workspaceId, missing.slice(i, i + AHEAD_SLICE)));
    }
  }

  /**
   * The dictionary `assign` gives ids from. On a shared store, read again when another
   * process replaced the state since memory read it (D-1139): an import gives every id
   * anew, and this process hears of it only with its next request, so that a job it runs
   * meanwhile would store chunks under ids that now name other terms, or none, and no
   * process would find them by those words. Callers took the workspace's row first
   * (`lockFor`), which an import's table lock waits for: the count cannot move after this.
   */
  async #current(trx: Transaction<Database>, workspaceId: string): Promise<Loaded> {
    const loaded = await this.#load(trx, workspaceId);
    const replacements = this.options.shared ? await this.options.replacements?.(trx) : undefined;
    if (replacements === undefined || replacements === loaded.replacements) return loaded;
    // Every workspace's ids went with the state, not only this one's.
    this.forget();
    return this.#load(trx, workspaceId);
  }

  async #readNewer(db: Db, workspaceId: string, loaded: Loaded): Promise<void> {
    const newer = await this.#newer.execute({ workspaceId, next: loaded.next }, db);
    for (const row of newer) add(loaded, row.term, Number(row.id));
  }

  /** Forgets a workspace's dictionary (its next read comes from the store), or every one. */
  forget(workspaceId?: string): void {
    this.#generation += 1;
    if (workspaceId === undefined) this.#workspaces.clear();
    else this.#workspaces.delete(workspaceId);
  }

  /**
   * The dictionary, read on `db` the first time. Reads are not shared between callers:
   * a transaction holds the store's only connection (SQLite, PGlite), so waiting there
   * for a read started outside it would wait forever. The first complete read wins;
   * one started before a `forget` is dropped.
   */
  async #load(db: Db, workspaceId: string): Promise<Loaded> {
    const known = this.#workspaces.get(workspaceId);
    if (known) return known;
    const generation = this.#generation;
    // Read before the terms: a replacement between the two reads leaves the count behind, and the next `assign` reads them again.
    const replacements = this.options.shared ? ((await this.options.replacements?.(db)) ?? 0) : 0;
    const out: Loaded = { terms: new Map(), next: 0, replacements };
    const rows = await db.selectFrom('knowledge_terms').select(['term', 'id']).where('workspace_id', '=', workspaceId).execute();
    for (const row of rows) add(out, row.term, Number(row.id));
    const now = this.#workspaces.get(workspaceId);
    if (now) return now;
    if (generation === this.#generation) this.#workspaces.set(workspaceId, out);
    return out;
  }
}

function add(loaded: Loaded, term: string, id: number): void {
  loaded.terms.set(term, id);
  if (id >= loaded.next) loaded.next = id + 1;
}
