/**
 * Lexicons this process learned, as stored, by the print of the sources they were learned
 * from (decisions, D-1223). The print is of what the sources hold (content hashes, file
 * names and URLs, claims) and learning reads nothing else, in an order of its own
 * (D-789): sources of one print, every chunk read, learn the same lexicon byte for byte
 * in whichever workspace they are. Only lexicons this process learned itself are kept,
 * never one read from the store, so a row put there by hand teaches no other workspace.
 */
export class LearnedByPrint {
  readonly #data = new Map<string, string>();

  /** @param capacity The most recently used this many are kept. */
  constructor(private readonly capacity: number) {}

  get(print: string): string | undefined {
    const data = this.#data.get(print);
    if (data === undefined) return undefined;
    // Most recently used last: the first one goes when the map is full.
    this.#data.delete(print);
    this.#data.set(print, data);
    return data;
  }

  set(print: string, data: string): void {
    this.#data.delete(print);
    this.#data.set(print, data);
    if (this.#data.size > this.capacity) this.#data.delete(this.#data.keys().next().value!);
  }
}
