import type { Kysely } from 'kysely';
import type { Database } from '../db/schema/index.js';
import type { Tx } from '../db/transaction.js';
import { prepareQuery, type PreparedQuery } from '../db/prepared.js';
import type { Coherence } from './coherence.js';

/**
 * Coherence through the store: every change bumps one version row inside its own
 * transaction, and every request first reads that row (one primary-key read). A
 * version this process has not applied yet runs the listeners, which drop or reload
 * what memory holds. Exact: a change committed before a request arrives anywhere is
 * seen by it (decisions, D-203).
 */
export class SqlCoherence implements Coherence {
  readonly shared = true;
  readonly #listeners: (() => void | Promise<void>)[] = [];
  readonly #read: PreparedQuery<Record<string, never>, { version: number }>;
  #applied = -1;
  #applying: Promise<void> = Promise.resolve();
  #reading: Promise<number> | undefined;
  #nextRead: Promise<number> | undefined;

  constructor(db: Kysely<Database>) {
    this.#read = prepareQuery(db, () => db.selectFrom('coherence').select('version').where('id', '=', 1));
  }

  async start(): Promise<void> {
    this.#applied = await this.#version();
  }

  async sync(): Promise<void> {
    const version = await this.#freshVersion();
    if (version <= this.#applied) return;
    // One application at a time; a request that saw a newer version waits for its own.
    const applying = this.#applying
      .catch(() => {})
      .then(async () => {
        if (version <= this.#applied) return;
        for (const listener of this.#listeners) await listener();
        this.#applied = version;
      });
    this.#applying = applying;
    await applying;
  }

  async changed(trx: Tx): Promise<void> {
    await trx
      .updateTable('coherence')
      .set((eb) => ({ version: eb('version', '+', 1) }))
      .where('id', '=', 1)
      .execute();
  }

  onChange(listener: () => void | Promise<void>): void {
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

  async #version(): Promise<number> {
    const [row] = await this.#read.execute({});
    return Number(row?.version ?? 0);
  }
}
