import { nextTurn } from './turn.js';

interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: items that arrive while a write is under way wait and go together in the
 * next one (at most `max` per write), so that a burst costs a few transactions rather than
 * one each. A write that fails is tried again one item at a time, so one bad item fails
 * alone; each `add` settles once its item is written (or has failed). Used by ingestion
 * (decisions, D-893).
 */
export class GroupCommit<T> {
  readonly #waiting: Waiting<T>[] = [];
  #writing = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly max: number,
  ) {}

  /** Resolves once `item` is written, with those that came with it. */
  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      if (!this.#writing) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    try {
      // Items finished in the same turn of the event loop join the first write.
      await nextTurn();
      while (this.#waiting.length > 0) {
        const group = this.#waiting.splice(0, this.max);
        try {
          await this.write(group.map((w) => w.item));
          for (const w of group) w.resolve();
        } catch (error) {
          if (group.length === 1) {
            group[0]!.reject(error);
            continue;
          }
          for (const w of group) {
            try {
              await this.write([w.item]);
              w.resolve();
            } catch (alone) {
              w.reject(alone);
            }
          }
        }
      }
    } finally {
      this.#writing = false;
    }
  }
}
