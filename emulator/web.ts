import * as v from 'valibot';
import { StoreOpenError } from '../src/db/database.js';
import { OfflineWeb, WebDefinitionSchema, type WebDefinition } from '../src/knowledge/fetch/offline-web.js';
import type { HopResponse, Web } from '../src/knowledge/ports.js';
import type { MetaStore } from './meta.js';

// The key predates this module (it was the knowledge part's): stores written then keep
// their web (decisions, D-155).
const WEB_META_KEY = 'knowledge.web';
const WEB_UNREADABLE = Symbol('unreadable');

/**
 * The emulator's offline web, the `Web` URL sources are fetched from: replaced as a
 * whole by `PUT /_emulator/web`. It is configuration, not state: kept in the store's
 * `meta` so that it survives a restart, untouched by reset and state import.
 */
export class EmulatorWeb implements Web {
  #web: OfflineWeb;

  private constructor(
    private readonly meta: MetaStore,
    web: OfflineWeb,
  ) {
    this.#web = web;
  }

  /** Reads the web the store holds again (another process sharing it replaced it). */
  async reload(): Promise<void> {
    this.#web = new OfflineWeb(await this.meta.get<WebDefinition>(WEB_META_KEY));
  }

  /**
   * The web the store holds, read as `PUT /_emulator/web` reads one: a definition put into
   * the store by hand that it would refuse stops the start, naming the store (D-1151).
   */
  static async load(meta: MetaStore, where: string): Promise<EmulatorWeb> {
    const stored = await meta.get<unknown>(WEB_META_KEY).catch(() => WEB_UNREADABLE);
    if (stored === undefined) return new EmulatorWeb(meta, new OfflineWeb(undefined));
    const parsed = stored === WEB_UNREADABLE ? undefined : v.safeParse(WebDefinitionSchema, stored);
    if (!parsed?.success) {
      const issue = parsed?.issues[0];
      const at = issue ? ` (${v.getDotPath(issue) ?? '(root)'}: ${issue.message})` : ' (not JSON)';
      throw new StoreOpenError(`cannot use ${where}: its meta.${WEB_META_KEY} is not an offline web svc-emulator writes${at}; nothing was changed`);
    }
    return new EmulatorWeb(meta, new OfflineWeb(parsed.output));
  }

  /** Replaces the whole web; answers how many pages and hosts it has. */
  async set(definition: WebDefinition): Promise<{ pages: number; hosts: number }> {
    const web = new OfflineWeb(definition);
    await this.meta.set(WEB_META_KEY, definition, { announce: true });
    this.#web = web;
    return web.summary;
  }

  /** The web in force. */
  get definition(): WebDefinition {
    return this.#web.definition;
  }

  resolve(name: string): Promise<string[]> {
    return this.#web.resolve(name);
  }

  get(url: URL, address: string, budgetMs: number, maxBytes: number): Promise<HopResponse> {
    return this.#web.get(url, address, budgetMs, maxBytes);
  }
}
