import type { KnowledgeIndex } from '../knowledge/knowledge-index.js';
import { ScopeIndex } from './retrieval-index.js';

/**
 * One `ScopeIndex` per agent scope, rebuilt when `index.version()` changes. Concurrent
 * queries of a scope share one build; the least recently used scopes are dropped past
 * `maxScopes`.
 */
export class ScopeIndexCache {
  readonly #entries = new Map<string, { version: string; index: Promise<ScopeIndex> }>();

  constructor(
    private readonly knowledge: KnowledgeIndex,
    private readonly maxScopes = 64,
  ) {}

  async get(workspaceId: string, agentId: string): Promise<ScopeIndex> {
    const version = await this.knowledge.version(workspaceId, agentId);
    const key = `${workspaceId}\u0000${agentId}`;
    const entry = this.#entries.get(key);
    if (entry && entry.version === version) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      return entry.index;
    }
    const index = this.#restore(workspaceId, agentId, version).then((restored) => restored ?? this.#build(workspaceId, agentId, version));
    this.#entries.delete(key);
    this.#remember(key, version, index);
    while (this.#entries.size > this.maxScopes) this.#entries.delete(this.#entries.keys().next().value!);
    return index;
  }

  clear(): void {
    this.#entries.clear();
  }

  /**
   * The scope's index built again from the chunks, in place of `damaged` (a stored index
   * whose bytes came back unlike they were written, D-601); the new one is stored.
   */
  async rebuild(workspaceId: string, agentId: string, damaged: ScopeIndex): Promise<ScopeIndex> {
    // Knowledge changed since (its rows were replaced by another version's): the current index.
    if ((await this.knowledge.version(workspaceId, agentId)) !== damaged.version) return this.get(workspaceId, agentId);
    const key = `${workspaceId}\u0000${agentId}`;
    const entry = this.#entries.get(key);
    if (entry && entry.version === damaged.version && (await entry.index.catch(() => damaged)) !== damaged) return entry.index;
    return this.#remember(key, damaged.version, this.#build(workspaceId, agentId, damaged.version));
  }

  #remember(key: string, version: string, index: Promise<ScopeIndex>): Promise<ScopeIndex> {
    this.#entries.set(key, { version, index });
    // A failed build must not stay cached.
    index.catch(() => {
      if (this.#entries.get(key)?.index === index) this.#entries.delete(key);
    });
    return index;
  }

  /** The scope's index as the store kept it at this version, if it did (decisions, D-308). */
  async #restore(workspaceId: string, agentId: string, version: string): Promise<ScopeIndex | undefined> {
    const store = this.knowledge.scopeIndexes;
    const bytes = store && (await store.read(workspaceId, agentId, version));
    if (!store || !bytes) return undefined;
    return ScopeIndex.fromBytes(bytes, version, { workspaceId, agentId, store });
  }

  async #build(workspaceId: string, agentId: string, version: string): Promise<ScopeIndex> {
    const chunks = await this.knowledge.eligibleChunks(workspaceId, agentId);
    // Read after the chunks: the dictionary only grows, so it knows every id they hold.
    const dictionary = await this.knowledge.dictionary(workspaceId);
    // A plugged embedder may learn its length from its first answer: the stored vectors tell it too.
    const dims = this.knowledge.embedder.dimensions || (chunks[0]?.vector.length ?? 0);
    const index = ScopeIndex.build(version, chunks, dims, dictionary);
    const store = this.knowledge.scopeIndexes;
    if (store && index.size > 0) {
      // Written after this query is answered; a failed write only means building it again after a restart.
      store.write(workspaceId, agentId, version, () => index.toBytes()).catch(() => {});
    }
    return index;
  }
}
