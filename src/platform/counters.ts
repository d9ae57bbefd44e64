/**
 * Fixed-window counters (rate limits, visitors' turns): how many hits a name had in the
 * window that starts at `windowStart`. In memory for a store only this process uses;
 * in the store when processes share it (`SqlWindowCounters`), so that a limit of N
 * allows N across all of them (decisions, D-202).
 */
export interface WindowCounters {
  /**
   * Counts one hit of `name` in the window `[windowStart, windowEnd)` (epoch ms) and
   * answers the count with it. Synchronous in memory: this runs on every request.
   */
  hit(name: string, windowStart: number, windowEnd: number): number | Promise<number>;
  /** Forgets every count (a state import or reset). */
  clear(): void | Promise<void>;
}

/**
 * Counters of one process. Windows that ended are swept when the map grows, so a stream
 * of new names (visitors' addresses) cannot grow it without bound.
 */
export class MemoryWindowCounters implements WindowCounters {
  readonly #windows = new Map<string, { start: number; count: number }>();
  #sweepAt = 1024;

  hit(name: string, windowStart: number): number {
    let entry = this.#windows.get(name);
    if (!entry || entry.start !== windowStart) {
      entry = { start: windowStart, count: 0 };
      this.#windows.set(name, entry);
      if (this.#windows.size >= this.#sweepAt) this.#sweep(windowStart);
    }
    return ++entry.count;
  }

  clear(): void {
    this.#windows.clear();
  }

  #sweep(current: number): void {
    for (const [name, entry] of this.#windows) if (entry.start < current) this.#windows.delete(name);
    this.#sweepAt = Math.max(1024, this.#windows.size * 2);
  }
}
