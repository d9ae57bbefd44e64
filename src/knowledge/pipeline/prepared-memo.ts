import { createHash } from 'node:crypto';
import { BoundedLru } from '../../platform/bounded-lru.js';
import type { DocumentInput, Prepared } from './pipeline.js';

/** Documents a thread keeps the pipeline's output of, the most recently used (256 pages of the Debian Reference: 7 MiB)... */
const MAX_ENTRIES = 256;
/** ...holding at most this many characters of chunk text between them (one document at the text cap, D-142). */
const MAX_CHARS = 2_000_000;

/** What a document's pipeline output depends on: every field of its input, the bytes by their hash. */
function keyOf(input: DocumentInput & { embed: boolean }): string {
  const { bytes, ...rest } = input;
  const fields = Object.fromEntries(Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return createHash('sha256').update(JSON.stringify(fields)).update('\n').update(bytes).digest('hex');
}

const charsOf = (prepared: Prepared): number => prepared.chunks.reduce((n, c) => n + c.text.length, prepared.title.length);

/**
 * The pipeline's output per document, by content (decisions, D-981): `prepareDocument` is
 * a pure function of its input, so the same bytes with the same title and options give
 * the same chunks, and a document uploaded again (a test suite's fixture in every fresh
 * workspace, an unchanged page crawled again while the thread lives) is read once per
 * worker thread. Bounded by entries and by characters, least recently used out first; a
 * document that fails is not kept (a limit it ran over may not be reached next time).
 * What a task answers is copied to the caller, so the kept value is never shared.
 */
export class PreparedMemo {
  readonly #entries: BoundedLru<Prepared>;

  constructor(maxEntries = MAX_ENTRIES, maxChars = MAX_CHARS) {
    this.#entries = new BoundedLru({ entries: maxEntries, size: maxChars });
  }

  /** The kept output for `input`, else `prepare()`'s, kept when it fits. */
  async get(input: DocumentInput & { embed: boolean }, prepare: () => Promise<Prepared>): Promise<Prepared> {
    const key = keyOf(input);
    const hit = this.#entries.get(key);
    if (hit) return hit;
    const prepared = await prepare();
    this.#entries.set(key, prepared, charsOf(prepared));
    return prepared;
  }

  get size(): number {
    return this.#entries.count;
  }
}
