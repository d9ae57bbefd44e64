import type { KnowledgeIndex } from '../knowledge/knowledge-index.js';
import { ScopeIndex } from './retrieval-index.js';
import { canStoreScopeIndexes, decodeScopeIndex } from './scope-index-bytes.js';
import { changedSources, updateScopeIndex } from './scope-index-update.js';
import { nextTurn } from '../platform/turn.js';

/** Past this many changed sources, reading every chunk once costs about as much as their long `IN` list. */
const UPDATE_LIMIT = 500;

/**
 * One `ScopeIndex` per agent scope, rebuilt when `index.version()` changes. Concurrent
 * queries of a scope share one build; the least recently used scopes are dropped past
 * `maxScopes`. A scope not in memory is restored from the store when its stored index
 * is of the current version, brought up to date when it is of an older one (D-610),
 * and built from every chunk otherwise.
 */
export class ScopeIndexCache {
  readonly #entries = new Map<string, { version: string; index: Promise<ScopeIndex> }>();

  constructor(
    private readonly knowledge: KnowledgeIndex,
    private readonly maxScopes = 64,
    private readonly log?: (message: string, error?: unknown) => void,
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
    const index = this.#fromStore(workspaceId, agentId, version).then((stored) => stored ?? this.#build(workspaceId, agentId, version));
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

  /**
   * The scope's index from the store: as it kept it at this version (decisions, D-308),
   * or the one it kept at an older version brought up to date (D-610).
   */
  async #fromStore(workspaceId: string, agentId: string, version: string): Promise<ScopeIndex | undefined> {
    const store = this.knowledge.scopeIndexes;
    const head = store && (await store.readHead(workspaceId, agentId));
    if (!store || !head) return undefined;
    const loader = { workspaceId, agentId, store };
    if (head.version === version) {
      return ScopeIndex.fromBytes(head.data, version, loader);
    }
    // Anything that does not fit, damaged bytes included, leaves it to a full build.
    const updated = await this.#update(workspaceId, agentId, version, head.data).catch(async (error: unknown) => {
      // Blocks a newer index replaced while they were read are no damage: only bytes unlike those written are logged.
      if ((await store.readHead(workspaceId, agentId).catch(() => undefined))?.version === head.version)
        this.log?.('svc.retrieval: a stored scope index could not be brought up to date; it is built from the chunks', error);
      return undefined;
    });
    if (updated) this.#store(workspaceId, agentId, updated);
    return updated;
  }

  async #update(workspaceId: string, agentId: string, version: string, bytes: Uint8Array): Promise<ScopeIndex | undefined> {
    const knowledge = this.knowledge;
    const store = knowledge.scopeIndexes!;
    if (!knowledge.sources || !knowledge.versionOf || !knowledge.sourceChunks || !canStoreScopeIndexes) return undefined;
    const old = decodeScopeIndex(bytes);
    // Its prints must make its version with today's embedder and analyzer: else its terms or vectors are another's.
    if (!old?.prints || knowledge.versionOf(old.prints) !== old.version) return undefined;
    // Decoding a large scope's terms takes a while: requests that came meanwhile go first (D-1161).
    await nextTurn();
    const now = await knowledge.sources(workspaceId, agentId);
    if (now.version !== version) return undefined;
    const changed = changedSources(old.prints, now.prints);
    if (changed.size > UPDATE_LIMIT) return undefined;
    const added = await knowledge.sourceChunks(workspaceId, agentId, [...changed]);
    // Read after the chunks, as a build does.
    const dictionary = await knowledge.dictionary(workspaceId);
    const dims = knowledge.embedder.dimensions || old.dims;
    if (dims !== old.dims || (!knowledge.embedder.dimensions && added.some((c) => c.vector.length !== dims))) return undefined;
    const index = await updateScopeIndex({
      old: { ...old, prints: old.prints },
      version,
      prints: now.prints,
      added,
      dims,
      dictionary,
      loader: { workspaceId, agentId, store },
    });
    // Knowledge changed again while the chunks were read: what they hold may be newer than `version`.
    if ((await knowledge.version(workspaceId, agentId)) !== version) return undefined;
    return index;
  }

  async #build(workspaceId: string, agentId: string, version: string): Promise<ScopeIndex> {
    // The prints of the version, kept with the index so that a later one is made from it (D-610).
    const sources = await this.knowledge.sources?.(workspaceId, agentId);
    const chunks = await this.knowledge.eligibleChunks(workspaceId, agentId);
    // Read after the chunks: the dictionary only grows, so it knows every id they hold.
    const dictionary = await this.knowledge.dictionary(workspaceId);
    // A plugged embedder may learn its length from its first answer: the stored vectors tell it too.
    const dims = this.knowledge.embedder.dimensions || (chunks[0]?.vector.length ?? 0);
    const index = ScopeIndex.build(version, chunks, dims, dictionary, sources?.version === version ? sources.prints : undefined);
    this.#store(workspaceId, agentId, index);
    return index;
  }

  #store(workspaceId: string, agentId: string, index: ScopeIndex): void {
    const store = this.knowledge.scopeIndexes;
    if (store && index.size > 0) {
      // Written after this query is answered; a failed write only means building it again after a restart.
      store.write(workspaceId, agentId, index.version, () => index.encode()).catch(() => {});
    }
  }
}
