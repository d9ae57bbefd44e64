import { sha256Hex } from '../../src/platform/crypto.js';
import { WorkerLimitError, workerModule, type WorkerPool } from '../../src/platform/worker-pool.js';
import { escapeHtml } from './markdown.js';
import type * as MarkdownWorker from './markdown.worker.js';

const MARKDOWN_WORKER = workerModule<typeof MarkdownWorker>(import.meta.url, 'markdown.worker');

/** How much rendered HTML the cache keeps (UTF-16 code units), and how many pages at most. */
export const RENDER_CACHE = { maxChars: 32 * 1024 * 1024, maxEntries: 2_000 };

/** A page body's version: the page, the language and a hash of the Markdown itself. */
function versionKey(pageId: string, lang: string, markdown: string): string {
  return `${pageId}\n${lang}\n${sha256Hex(markdown)}`;
}

/** The entry kept under `key`, made the most recently used (last in the map's order). */
function recentlyUsed<T>(cache: Map<string, T>, key: string): T | undefined {
  const hit = cache.get(key);
  if (hit === undefined) return undefined;
  cache.delete(key);
  cache.set(key, hit);
  return hit;
}

/**
 * Document page bodies rendered once per published version and kept: a view of an
 * unchanged page does no Markdown work. The key is the page, the language and a hash
 * of the Markdown itself (a seeded emulator's frozen clock leaves `updatedAt` alone
 * across edits). Rendering runs in the worker pool; concurrent first views share one
 * rendering. Least recently used entries leave first, within `RENDER_CACHE`.
 */
export class RenderedPages {
  readonly #cache = new Map<string, Promise<string>>();
  readonly #headings = new Map<string, Promise<string | null>>();
  readonly #sizes = new Map<string, number>();
  #chars = 0;

  constructor(
    private readonly workers: WorkerPool,
    private readonly log: (message: string, error?: unknown) => void,
  ) {}

  /** The sanitised HTML of a page body in one language. */
  render(pageId: string, lang: string, markdown: string): Promise<string> {
    const key = versionKey(pageId, lang, markdown);
    const hit = recentlyUsed(this.#cache, key);
    if (hit) return hit;
    const rendered = this.#render(markdown);
    this.#cache.set(key, rendered);
    void rendered.then(
      (html) => this.#account(key, html.length),
      () => this.#forget(key),
    );
    return rendered;
  }

  async #render(markdown: string): Promise<string> {
    try {
      return await this.workers.run(MARKDOWN_WORKER, 'render', markdown);
    } catch (error) {
      if (!(error instanceof WorkerLimitError)) throw error;
      // A body that cannot be rendered within the limits is shown as its text, escaped.
      this.log(`a page body ran over the rendering ${error.limit} limit; served as plain text`);
      return `<pre>${escapeHtml(markdown)}</pre>`;
    }
  }

  #account(key: string, size: number): void {
    if (!this.#cache.has(key)) return;
    this.#sizes.set(key, size);
    this.#chars += size;
    for (const oldest of this.#cache.keys()) {
      if (this.#chars <= RENDER_CACHE.maxChars && this.#cache.size <= RENDER_CACHE.maxEntries) break;
      if (oldest === key) continue;
      this.#forget(oldest);
    }
  }

  #forget(key: string): void {
    this.#cache.delete(key);
    this.#chars -= this.#sizes.get(key) ?? 0;
    this.#sizes.delete(key);
  }

  /**
   * The first heading a page body shows in one language (D-1202), or null: read in the
   * worker pool from the HTML `render` keeps, and kept per version as that HTML is. A
   * body that ran over the rendering limits is shown as plain text, which has none.
   */
  heading(pageId: string, lang: string, markdown: string): Promise<string | null> {
    const key = versionKey(pageId, lang, markdown);
    const hit = recentlyUsed(this.#headings, key);
    if (hit) return hit;
    const found = this.render(pageId, lang, markdown).then((html) => this.workers.run(MARKDOWN_WORKER, 'heading', html));
    this.#headings.set(key, found);
    void found.catch(() => this.#headings.delete(key));
    for (const oldest of this.#headings.keys()) {
      if (this.#headings.size <= RENDER_CACHE.maxEntries) break;
      this.#headings.delete(oldest);
    }
    return found;
  }

  /** Entries kept now (tests). */
  get size(): number {
    return this.#cache.size;
  }
}
