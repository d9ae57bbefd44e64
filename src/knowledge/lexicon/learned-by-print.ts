/**
 * Lexicons this process learned, as stored, by the print of the sources they were learned
 * from (decisions, D-1223). The print is of what the sources hold (content hashes, file
 * names and URLs, claims) and learning reads nothing else, in an order of its own
 * (D-789): sources of one print, every chunk read, learn the same lexicon byte for byte
 * in whichever workspace they are. Only lexicons this process learned itself are kept,
 * never one read from the store, so a row put there by hand teaches no other workspace.
 * Bounded by entries and by characters, least recently used out first.
 */
export class LearnedByPrint {
  readonly #data = new Map<string, string>();
  #chars = 0;

  constructor(private readonly limits: { entries: number; chars: number }) {}

  get(print: string): string | undefined {
    const data = this.#data.get(print);
    if (data === undefined) return undefined;
    // Most recently used last: the first one goes when the map is full.
    this.#data.delete(print);
    this.#data.set(print, data);
    return data;
  }

  set(print: string, data: string): void {
    this.#drop(print);
    if (data.length > this.limits.chars) return;
    this.#data.set(print, data);
    this.#chars += data.length;
    while (this.#data.size > this.limits.entries || this.#chars > this.limits.chars) this.#drop(this.#data.keys().next().value!);
  }

  #drop(print: string): void {
    const data = this.#data.get(print);
    if (data === undefined) return;
    this.#data.delete(print);
    this.#chars -= data.length;
  }
}
