import type { Db } from '../db/schema/index.js';
import type { Tx } from '../db/transaction.js';

/**
 * How a process learns that another one changed what it keeps in memory (cached keys,
 * faults, the clock, the offline web). With a store only this process uses there is
 * nothing to learn (`LocalCoherence`); processes sharing a store read one version
 * number per request (`SqlCoherence`, decisions, D-203).
 */
export interface Coherence {
  /**
   * Other processes write this store: what memory derives from it is checked against the
   * store before use rather than trusted until this process hears of a change.
   */
  readonly shared: boolean;
  /**
   * Brings this process up to date before a request: runs the listeners when another
   * process changed something. Synchronous (undefined) when there is nothing to ask.
   */
  sync(): void | Promise<void>;
  /**
   * Records that `trx` changed what other processes keep in memory; they see it with its
   * commit. Only a transaction opened by `transaction()` can carry it (D-960).
   * `replaced`: it replaced the whole state (an import or a reset), so that what memory
   * derived from any table, not only from keys and workspaces, is stale (D-1133).
   */
  changed(trx: Tx, change?: { replaced?: boolean }): Promise<void>;
  /**
   * How many times another process replaced the state, as `db` reads it now. A writer
   * that stores what it derived from memory (term ids) compares it, inside its
   * transaction, with the count under which memory was loaded: a job runs without the
   * request that would have brought its process up to date (D-1139). Always 0 on a store
   * only this process uses (its own imports pause its jobs and forget at once).
   */
  replacements(db: Db): Promise<number>;
  /** Runs `listener` (awaited) when another process changed something. */
  onChange(listener: (change: CoherenceChange) => void | Promise<void>): void;
  /** Reads where things stand now, before this process loads anything the listeners reload. */
  start(): Promise<void>;
}

/** What a listener learns of the changes since the last it heard of. */
export interface CoherenceChange {
  /** Among them, the state replaced (`changed(trx, { replaced: true })`). */
  replaced: boolean;
}

/** One process is the only user of its store: its own writes already told its caches. */
export class LocalCoherence implements Coherence {
  readonly shared = false;

  sync(): undefined {
    return undefined;
  }

  async changed(): Promise<void> {}

  async replacements(): Promise<number> {
    return 0;
  }

  onChange(): void {}

  async start(): Promise<void> {}
}
