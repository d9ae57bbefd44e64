import type { Kysely } from 'kysely';
import type { Database, Db } from '../db/schema/index.js';
import type { Tx } from '../db/transaction.js';
import { prepareQuery, type PreparedQuery } from '../db/prepared.js';
import type { Coherence, CoherenceChange } from './coherence.js';

/** The row of `coherence` every change bumps. */
const VERSION = 1;
/** The row only a change that replaced the state bumps (D-1133); absent until the first. */
const REPLACEMENTS = 2;

/**
 * Coherence through the store: every change bumps one version row inside its own
 * transaction, and every request first reads that row (one primary-key read). A
 * version this process has not applied yet runs the listeners, which drop or reload
 * what memory holds. Exact: a change committed before a request arrives anywhere is
 * seen by it (decisions, D-203). A change that replaced the state also bumps a second
 * row, read only when the version moved, so that listeners can tell (D-1133).
 */
export class SqlCoherence implements Coherence {
  readonly shared = true;
  readonly #listeners: ((change: CoherenceChange) => void | Promise<void>)[] = [];
  readonly #read: PreparedQuery<{ id: number }, { version: number }>;
  #applied = -1;
  #replacements = 0;
  #applying: Promise<void> = Promise.resolve();
  #reading: Promise<number> | undefined;
  #nextRead: Promise<number> | undefined;

  constructor(db: Kysely<Database>) {
    this.#read = prepareQuery(db, (p) => db.selectFrom('coherence').select('version').where('id', '=', p('id')));
  }

  async start(): Promise<void> {
    this.#applied = await this.#version();
    this.#replacements = await this.#version(REPLACEMENTS);
  }

  async sync(): Promise<void> {
    const version = await this.#freshVersion();
    if (version <= this.#applied) return;
    // One application at a time; a request that saw a newer version waits for its own.
    const applying = this.#applying
      .catch(() => {})
      .then(async () => {
        if (version <= this.#applied) return;
        const replacements = await this.#version(REPLACEMENTS);
        const change = { replaced: replacements !== this.#replacements };
        for (const listener of this.#listeners) await listener(change);
        this.#applied = version;
        this.#replacements = replacements;
      });
    this.#applying = applying;
    await applying;
  }

  async changed(trx: Tx, change: { replaced?: boolean } = {}): Promise<void> {
    await trx
      .updateTable('coherence')
      .set((eb) => ({ version: eb('version', '+', 1) }))
      .where('id', '=', VERSION)
      .execute();
    if (change.replaced) {
      await trx
        .insertInto('coherence')
        .values({ id: REPLACEMENTS, version: 1 })
        .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({ version: eb('coherence.version', '+', 1) })))
        .execute();
    }
  }

  async replacements(db: Db): Promise<number> {
    return this.#version(REPLACEMENTS, db);
  }

  onChange(listener: (change: CoherenceChange) => void | Promise<void>): void {
    this.#listeners.push(listener);
  }

  /**
   * The version as read by a query that started after this call: concurrent requests
   * share one read (under load, one query serves many) but never one that began before
   * they arrived, which could miss a change committed just before. Still exact.
   */
  #freshVersion(): Promise<number> {
    if (!this.#reading) {
      this.#reading = this.#version().finally(() => (this.#reading = undefined));
      return this.#reading;
    }
    this.#nextRead ??= this.#reading
      .catch(() => {})
      .then(() => {
        this.#nextRead = undefined;
        return this.#freshVersion();
      });
    return this.#nextRead;
  }

  async #version(id = VERSION, db?: Db): Promise<number> {
    const [row] = await this.#read.execute({ id }, db);
    return Number(row?.version ?? 0);
  }
}
