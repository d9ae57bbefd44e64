import type { IndexedChunk } from '../knowledge/knowledge-index.js';
import { blockOf, LexicalIndex, type TermMaker } from './lexical-index.js';
import { DamagedScopeIndex, keptCounts, remapTerm, remapTermInto, unpackTerm, unpackTermInto, type TermPostings } from './postings-bytes.js';
import { ScopeIndex, storedChunks, topicEntry, type ChunkLoader, type ChunkMeta, type TopicEntry } from './retrieval-index.js';
import type { DecodedScopeIndex } from './scope-index-bytes.js';
import { crc32Bytes } from '../platform/crypto.js';
import { nextTurn } from '../platform/turn.js';

/*
 * A stored scope index brought up to date with a later version of its knowledge
 * (decisions, D-610): the chunks of the sources whose print changed (or that went) are
 * dropped, those of the changed and new sources added, and the result is the index a
 * full build of the later version makes, without reading every chunk row: the new
 * sources' chunks, the exact vectors of the topics those chunks join or leave, and the
 * old postings, all of them only when chunks were dropped (to count what is left of
 * each term). A term's postings are made when a query first uses it, from the stored
 * block holding it, as a restored index unpacks its terms; all of them when the index
 * is written (after the answer), which reads every block before the rows are replaced.
 */

export interface ScopeIndexUpdate {
  /** The head of the stored index, of an older version, with the prints it was built from. */
  old: DecodedScopeIndex & { prints: [string, string][] };
  version: string;
  prints: [string, string][];
  /** The ready, eligible chunks of every source whose print is not the old one (any order). */
  added: IndexedChunk[];
  dims: number;
  /** The workspace's dictionary, read after `added`. */
  dictionary: ReadonlyMap<string, number>;
  loader: ChunkLoader;
}

/** The sources whose chunks differ between two lists of prints: changed, added or gone. */
export function changedSources(before: readonly (readonly [string, string])[], after: readonly (readonly [string, string])[]): Set<string> {
  const was = new Map(before);
  const changed = new Set<string>();
  for (const [id, print] of after) if (was.get(id) !== print) changed.add(id);
  const now = new Set(after.map(([id]) => id));
  for (const [id] of before) if (!now.has(id)) changed.add(id);
  return changed;
}

const byChunkId = (a: IndexedChunk, b: IndexedChunk) => (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0);

/**
 * The index of `version` made from the stored one of an older version, or undefined
 * when something does not fit (a term id the dictionary gives another term, a chunk in
 * both, a topic member's vector missing): the caller builds it from every chunk.
 * Throws `DamagedScopeIndex` when a stored block is missing or damaged.
 */
export async function updateScopeIndex(update: ScopeIndexUpdate): Promise<ScopeIndex | undefined> {
  const { old, dictionary, dims, loader } = update;
  // Term ids are the workspace's and never change; a dictionary read again after an import may differ.
  if (old.lexical.offsets.length - 1 > dictionary.size) return undefined;
  for (const [term, id] of old.terms) if (dictionary.get(term) !== id) return undefined;
  // As long again for a large scope: requests that came meanwhile go first (D-1161).
  await nextTurn();
  const changed = changedSources(old.prints, update.prints);
  const added = [...update.added].sort(byChunkId);
  if (added.some((c) => !changed.has(c.sourceId))) return undefined;

  // The new order: the kept chunks and the added ones merged by chunk id, as a build sorts them.
  const { make, topics: oldTopicsOf, lang: oldLangOf, sourceId: oldSourceOf } = storedChunks(old);
  const remap = new Int32Array(old.size).fill(-1);
  const from: number[] = [];
  const dropped: number[] = [];
  const droppedSource = old.sources.map((source) => changed.has(source.sourceId));
  // Where each added chunk goes among the old ones, by binary search: decoding every old chunk id costs more.
  const before: number[] = [];
  for (const c of added) {
    let lo = 0;
    let hi = old.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (old.chunkId(mid) < c.chunkId) lo = mid + 1;
      else hi = mid;
    }
    // A chunk both kept and added: the prints did not tell what changed.
    if (lo < old.size && old.chunkId(lo) === c.chunkId && !droppedSource[old.chunkSources[lo]!]) return undefined;
    before.push(lo);
  }
  let j = 0;
  for (let i = 0; i < old.size; i++) {
    for (; j < added.length && before[j]! <= i; j++) from.push(-1 - j);
    if (droppedSource[old.chunkSources[i]!]) {
      dropped.push(i);
      continue;
    }
    remap[i] = from.length;
    from.push(i);
  }
  for (; j < added.length; j++) from.push(-1 - j);
  const size = from.length;
  const addedAt = new Uint32Array(added.length);
  from.forEach((f, p) => {
    if (f < 0) addedAt[-1 - f] = p;
  });

  const headLengths = new Uint32Array(size);
  const bodyLengths = new Uint32Array(size);
  for (let p = 0; p < size; p++) {
    const f = from[p]!;
    headLengths[p] = f >= 0 ? old.lexical.headLengths[f]! : added[-1 - f]!.terms.headLength;
    bodyLengths[p] = f >= 0 ? old.lexical.bodyLengths[f]! : added[-1 - f]!.terms.bodyLength;
  }

  const made = await postings(old, loader, remap, dropped.length > 0, transpose(added, addedAt, dictionary.size));
  const lexical = new LexicalIndex({ size, ...made, headLengths, bodyLengths });

  const chunks = new Array<ChunkMeta | undefined>(size);
  const vectors = new Array<Float32Array | undefined>(size);
  added.forEach((c, k) => {
    chunks[addedAt[k]!] = c;
    vectors[addedAt[k]!] = c.vector;
  });
  const topicsOf = (p: number) => (from[p]! >= 0 ? oldTopicsOf(from[p]!) : added[-1 - from[p]!]!.topics);
  const topics = await updateTopics(update, { size, dropped, remap, topicsOf, vectors, chunkIdOf: (p) => old.chunkId(from[p]!) });
  if (!topics) return undefined;
  return ScopeIndex.assemble({
    version: update.version,
    dims,
    dictionary,
    chunks,
    lexical,
    vectors,
    loader,
    topics,
    prints: update.prints,
    restored: {
      make: (p) => make(from[p]!),
      topics: topicsOf,
      lang: (p) => (from[p]! >= 0 ? oldLangOf(from[p]!) : added[-1 - from[p]!]!.lang),
      sourceId: (p) => (from[p]! >= 0 ? oldSourceOf(from[p]!) : added[-1 - from[p]!]!.sourceId),
    },
  });
}

/** About how many postings `all` makes between two turns of the event loop (some milliseconds' work). */
const YIELD_EVERY = 200_000;

/** Postings of every term in flat arrays: term `id`'s are entries `offsets[id]` to `offsets[id + 1] - 1`. */
type FlatPostings = TermPostings & { offsets: Uint32Array };

/**
 * The merged postings' counts, and how to make a term's: the stored postings of the kept
 * chunks (moved by `remap`) and the added chunks'. The stored blocks are read once each,
 * checked, and kept; every one of them at once when chunks were `dropped`, since each
 * term's count of kept postings is read from them.
 */
async function postings(
  old: DecodedScopeIndex,
  loader: ChunkLoader,
  remap: Int32Array,
  dropped: boolean,
  added: FlatPostings,
): Promise<{ vocabularySize: number; offsets: Uint32Array; terms: TermMaker }> {
  const { stored, offsets: oldOffsets } = old.lexical;
  const oldDf = (id: number) => (id + 1 < oldOffsets.length ? oldOffsets[id + 1]! - oldOffsets[id]! : 0);
  const blocks = new Map<number, Uint8Array>();
  const read = async (wanted: readonly number[]) => {
    const missing = [...new Set(wanted)].filter((b) => !blocks.has(b)).sort((a, b) => a - b);
    const got = missing.length ? await loader.store.readBlocks(loader.workspaceId, loader.agentId, old.version, missing) : new Map<number, Uint8Array>();
    for (const b of missing) {
      const bytes = got.get(b);
      if (!bytes || bytes.byteLength !== stored.byteStarts[b + 1]! - stored.byteStarts[b]! || crc32Bytes(bytes) !== stored.crcs[b])
        throw new DamagedScopeIndex(`postings block ${b}`);
      blocks.set(b, bytes);
    }
  };
  let kept: Uint32Array | undefined;
  if (dropped) {
    const all = Array.from(stored.firstTerms, (_, b) => b);
    await read(all);
    kept = keptCounts(
      { ...stored, offsets: oldOffsets, blocks: all.map((b) => blocks.get(b)!) },
      Uint8Array.from(remap, (to) => (to >= 0 ? 1 : 0)),
    );
  }
  const terms = added.offsets.length - 1;
  const offsets = new Uint32Array(terms + 1);
  let vocabularySize = 0;
  for (let id = 0; id < terms; id++) {
    const df = (kept ? (kept[id] ?? 0) : oldDf(id)) + added.offsets[id + 1]! - added.offsets[id]!;
    offsets[id + 1] = offsets[id]! + df;
    if (df > 0) vocabularySize += 1;
  }
  const make = async (ids: readonly number[]) => {
    await read(ids.filter((id) => oldDf(id) > 0).map((id) => blockOf(stored.firstTerms, id)));
    const out = new Map<number, TermPostings>();
    for (const id of ids) {
      let term: TermPostings | undefined;
      if (oldDf(id) > 0) {
        const b = blockOf(stored.firstTerms, id);
        term = unpackTerm({ starts: stored.starts, bytes: blocks.get(b)! }, id, oldDf(id), stored.byteStarts[b]!);
        if (!term) throw new DamagedScopeIndex(`postings of term ${id}`);
      }
      out.set(id, remapTerm(term, remap, { ...added, from: added.offsets[id]!, to: added.offsets[id + 1]! }, offsets[id + 1]! - offsets[id]!));
    }
    return out;
  };
  // Every term at once (to write the index): into flat arrays, with one scratch for the stored terms.
  const all = async (): Promise<TermPostings> => {
    const ids: number[] = [];
    let longest = 0;
    for (let id = 0; id < terms; id++) {
      if (offsets[id + 1]! === offsets[id]!) continue;
      ids.push(id);
      longest = Math.max(longest, oldDf(id));
    }
    await read(ids.filter((id) => oldDf(id) > 0).map((id) => blockOf(stored.firstTerms, id)));
    const n = offsets[terms]!;
    const out = { docs: new Uint32Array(n), head: new Uint16Array(n), body: new Uint16Array(n) };
    const scratch = { docs: new Uint32Array(longest), head: new Uint16Array(longest), body: new Uint16Array(longest), from: 0, to: 0 };
    const from = { ...added, from: 0, to: 0 };
    let since = 0;
    for (const id of ids) {
      // A write after the answer: requests that came meanwhile are served between slices.
      if (since > YIELD_EVERY) {
        since = 0;
        await nextTurn();
      }
      since += offsets[id + 1]! - offsets[id]! + 8;
      const count = oldDf(id);
      if (count > 0) {
        const b = blockOf(stored.firstTerms, id);
        if (!unpackTermInto({ starts: stored.starts, bytes: blocks.get(b)! }, id, count, stored.byteStarts[b]!, scratch, 0))
          throw new DamagedScopeIndex(`postings of term ${id}`);
      }
      scratch.to = count;
      from.from = added.offsets[id]!;
      from.to = added.offsets[id + 1]!;
      remapTermInto(count > 0 ? scratch : undefined, remap, from, offsets[id + 1]! - offsets[id]!, out, offsets[id]!);
    }
    return out;
  };
  return { vocabularySize, offsets, terms: { some: make, all } };
}

/** The added chunks' postings at their new positions (ascending, as `addedAt` is). */
function transpose(added: readonly IndexedChunk[], addedAt: Uint32Array, terms: number): FlatPostings {
  const offsets = new Uint32Array(terms + 1);
  for (const c of added) for (const id of c.terms.ids) if (id < terms) offsets[id + 1]! += 1;
  for (let id = 0; id < terms; id++) offsets[id + 1]! += offsets[id]!;
  const cursor = offsets.slice(0, terms);
  const n = offsets[terms]!;
  const out = { offsets, docs: new Uint32Array(n), head: new Uint16Array(n), body: new Uint16Array(n) };
  added.forEach((c, k) => {
    const t = c.terms;
    for (let e = 0; e < t.ids.length; e++) {
      const id = t.ids[e]!;
      if (id >= terms) continue;
      const at = cursor[id]!++;
      out.docs[at] = addedAt[k]!;
      out.head[at] = t.head[e]!;
      out.body[at] = t.body[e]!;
    }
  });
  return out;
}

/**
 * The topics of the new order, by name as a build sorts them: a topic no changed chunk
 * joins or leaves keeps its centroid (the same vectors summed in the same order) and its
 * stored quantised vectors; the others are made again from their members' exact
 * vectors, those of kept chunks read by chunk id (into `vectors`).
 */
async function updateTopics(
  update: ScopeIndexUpdate,
  at: {
    size: number;
    dropped: number[];
    remap: Int32Array;
    topicsOf(p: number): string[];
    vectors: (Float32Array | undefined)[];
    chunkIdOf(p: number): string;
  },
): Promise<[string, TopicEntry][] | undefined> {
  const { old, dims, loader } = update;
  const touched = new Set<string>();
  for (const i of at.dropped) for (const t of old.sources[old.chunkSources[i]!]!.topics) touched.add(t);
  for (const c of update.added) for (const t of c.topics) touched.add(t);
  const members = new Map<string, number[]>();
  for (let p = 0; p < at.size; p++) {
    for (const topic of at.topicsOf(p)) {
      let list = members.get(topic);
      if (!list) {
        list = [];
        members.set(topic, list);
      }
      list.push(p);
    }
  }
  const oldTopics = new Map(old.topics.map((t, k) => [t.name, { ...t, block: old.topicBlocks[k]! }]));
  const remade = (topic: string) => touched.has(topic) || oldTopics.get(topic)?.members.length !== members.get(topic)!.length;
  const missing: number[] = [];
  for (const [topic, list] of members) if (remade(topic)) for (const p of list) if (!at.vectors[p]) missing.push(p);
  if (missing.length) {
    const read = await loader.store.vectors(
      loader.workspaceId,
      missing.map((p) => at.chunkIdOf(p)),
    );
    for (const p of missing) {
      const v = read.get(at.chunkIdOf(p));
      // A chunk gone from the store since: the knowledge changed again.
      if (!v) return undefined;
      at.vectors[p] = v;
    }
  }
  const out: [string, TopicEntry][] = [];
  for (const [topic, list] of [...members].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const kept = oldTopics.get(topic);
    if (kept && !remade(topic)) {
      const remapped = Uint32Array.from(kept.members, (i) => at.remap[i]!);
      out.push([topic, { members: remapped, centroid: kept.centroid, stems: kept.stems, block: { ...kept.block, version: old.version } }]);
    } else {
      out.push([topic, topicEntry(topic, list, (p) => at.vectors[p]!, dims)]);
    }
  }
  return out;
}
