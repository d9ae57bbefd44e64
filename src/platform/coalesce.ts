interface Waiter<R> {
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Calls with one key that arrive while that key's write is under way wait and go
 * together in the next write: one statement for many requests (decisions, D-203). The
 * write answers, for the `n` calls it took, what the `i`-th of them gets.
 */
export class Coalescer<B, R> {
  readonly #waiting = new Map<string, { batch: B; waiters: Waiter<R>[] }>();
  readonly #writing = new Set<string>();

  constructor(private readonly write: (batch: B, n: number) => Promise<(i: number) => R>) {}

  /** Joins the next write of `key`; `batch` describes it when this call is the first to wait. */
  add(key: string, batch: () => B): Promise<R> {
    return new Promise((resolve, reject) => {
      let waiting = this.#waiting.get(key);
      if (!waiting) {
        waiting = { batch: batch(), waiters: [] };
        this.#waiting.set(key, waiting);
      }
      waiting.waiters.push({ resolve, reject });
      if (!this.#writing.has(key)) void this.#drain(key);
    });
  }

  async #drain(key: string): Promise<void> {
    this.#writing.add(key);
    try {
      for (let waiting = this.#waiting.get(key); waiting; waiting = this.#waiting.get(key)) {
        this.#waiting.delete(key);
        const { batch, waiters } = waiting;
        try {
          const answer = await this.write(batch, waiters.length);
          waiters.forEach((w, i) => w.resolve(answer(i)));
        } catch (error) {
          for (const w of waiters) w.reject(error);
        }
      }
    } finally {
      this.#writing.delete(key);
    }
  }
}
