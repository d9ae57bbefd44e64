/**
 * Values by key, bounded by how many there are and by the sum of their sizes (whatever
 * unit the caller measures in), the least recently used out first. A value larger than
 * the size bound is not kept at all. For results that are a pure function of their key
 * (D-981, D-1223): a value dropped is computed again, never wrong.
 */
export class BoundedLru<V> {
  readonly #entries = new Map<string, { value: V; size: number }>();
  #size = 0;

  constructor(private readonly limits: { entries: number; size: number }) {}

  /** The value kept for `key`, now the most recently used. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` (in place of one kept for `key`) when it fits, dropping the least recently used past the bounds. */
  set(key: string, value: V, size: number): void {
    this.#drop(key);
    if (size > this.limits.size) return;
    this.#entries.set(key, { value, size });
    this.#size += size;
    while (this.#entries.size > this.limits.entries || this.#size > this.limits.size) this.#drop(this.#entries.keys().next().value!);
  }

  /** How many values are kept. */
  get count(): number {
    return this.#entries.size;
  }

  #drop(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#size -= entry.size;
  }
}
