import type { Db } from '../db/schema/index.js';

/**
 * How a process learns that another one changed what it keeps in memory (cached keys,
 * faults, the clock, the offline web). With a store only this process uses there is
 * nothing to learn (`LocalCoherence`); processes sharing a store read one version
 * number per request (`SqlCoherence`, decisions, D-203).
 */
export interface Coherence {
  /**
   * Brings this process up to date before a request: runs the listeners when another
   * process changed something. Synchronous (undefined) when there is nothing to ask.
   */
  sync(): void | Promise<void>;
  /** Records a change; inside a transaction it becomes visible with its commit. */
  changed(db: Db): Promise<void>;
  /** Runs `listener` (awaited) when another process changed something. */
  onChange(listener: () => void | Promise<void>): void;
  /** Reads where things stand now, before this process loads anything the listeners reload. */
  start(): Promise<void>;
}

/** One process is the only user of its store: its own writes already told its caches. */
export class LocalCoherence implements Coherence {
  sync(): undefined {
    return undefined;
  }

  async changed(): Promise<void> {}

  onChange(): void {}

  async start(): Promise<void> {}
}
