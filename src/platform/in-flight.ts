import { setMaxListeners } from 'node:events';

/**
 * The requests a service is answering, and the signal that tells work lasting as long as
 * its reader (a chat stream) that the service is stopping: a stop waits for them, so
 * none of them meets a closed store (decisions, D-1163).
 */
export class InFlight {
  readonly #stopping = new AbortController();
  readonly #running = new Set<Promise<unknown>>();

  constructor() {
    // Each turn being answered listens for the stop while it runs and stops listening when
    // it ends, so more than Node's ten listeners means more than ten turns at once, not a
    // leak; without this, an eleventh printed "Possible EventTarget memory leak" on stderr.
    setMaxListeners(0, this.#stopping.signal);
  }

  /** Aborted when the service stops. */
  get stopping(): AbortSignal {
    return this.#stopping.signal;
  }

  /** Counts `work` among the requests being answered until it settles; answers it. */
  track<T>(work: Promise<T>): Promise<T> {
    this.#running.add(work);
    const forget = () => this.#running.delete(work);
    work.then(forget, forget);
    return work;
  }

  /**
   * Runs `work` with a signal that aborts when `client`'s does or the service stops, and
   * takes its listener off the service's long-lived signal once `work` settles.
   */
  async untilStopped<T>(client: AbortSignal, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const abort = () => controller.abort();
    if (client.aborted || this.stopping.aborted) abort();
    client.addEventListener('abort', abort, { once: true });
    this.stopping.addEventListener('abort', abort, { once: true });
    try {
      return await work(controller.signal);
    } finally {
      client.removeEventListener('abort', abort);
      this.stopping.removeEventListener('abort', abort);
    }
  }

  /** Aborts `stopping`. */
  stop(): void {
    this.#stopping.abort();
  }

  /** Aborts `stopping`, then resolves once no tracked work is left (work begun meanwhile too). */
  async settle(): Promise<void> {
    this.stop();
    while (this.#running.size) await Promise.allSettled([...this.#running]);
  }
}
