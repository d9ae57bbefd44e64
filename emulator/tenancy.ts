import type { Store } from '../src/db/database.js';
import type { Clock, EmulatedClock } from '../src/platform/clock.js';
import type { Coherence } from '../src/platform/coherence.js';
import type { Kysely } from 'kysely';
import type { Database } from '../src/db/schema/index.js';
import { idStateOf, laterIds, type IdGenerator, type IdState } from '../src/platform/ids.js';
import { Faults, IngestFaults, type FaultRules, type IngestFaultQueue } from './faults.js';
import { Journal, type JournalStore } from './journal.js';
import type { MetaStore } from './meta.js';
import { SharedFaults, SharedIngestFaults } from './shared-faults.js';
import { SharedJournal } from './shared-journal.js';

/**
 * How this emulator holds its store: alone (SQLite, PGlite) or beside other processes
 * (a PostgreSQL server). Chosen once, from the store, by `storeTenancy` (D-970), as the
 * service's ports are chosen once in `storePorts` (D-961): the emulator asks its tenancy
 * what to do at each step of its life, never the store whether it is shared.
 */
export interface Tenancy {
  /**
   * The seed of this process's id stream (none: random ids). Alone, the seed itself;
   * beside others, each process draws from its own stream, or two seeded ones would hand
   * out the same ids (D-208): the seed plus the order in which it started on the store,
   * the first one the seed itself, so one seeded process on a new database draws the ids
   * it would draw on SQLite (D-972). Called once, at start, under the start lock.
   */
  idSeed(seed: string | undefined): Promise<string | undefined>;
  /** The id state saved in the store, to check and then `resumeIds` from; none beside others (D-208). */
  savedIds(read: <T>(key: string) => Promise<T | undefined>): Promise<IdState | undefined>;
  /**
   * Puts `ids` where the store left them (past any id a crash may have lost, and past
   * `lastInStore()`, the last id the store's rows hold: D-1198) and marks the store in use.
   */
  resumeIds(ids: IdGenerator, saved: IdState | undefined, clock: Clock, lastInStore: () => Promise<IdState | undefined>): Promise<void>;
  /** The id state written with the clock; none beside others, whose ids are not restored. */
  idsToSave(ids: IdGenerator): IdState | undefined;
  /** Takes a state document's id state: alone it is restored, beside others each keeps its stream (D-208). */
  restoreIds(ids: IdGenerator, state: IdState): void;
  /** Queued ingestion failures: memory alone, rows taken by whichever process ingests next (D-207). `ids`: the root generator. */
  ingestFaults(clock: Clock): IngestFaultQueue;
  /** Request faults: memory alone, rows counted down in the store beside others (D-207). */
  faults(ids: IdGenerator, coherence: Coherence, clock: Clock): FaultRules;
  /** The request journal: memory alone, a table every process writes beside others (D-207). */
  journal(): JournalStore;
  /**
   * Keeps what this process holds in memory (clock, offline web, faults) up to date with
   * what other processes change: `reload` runs on every change coherence reports and once
   * now, for what changed since the store was read at start (D-203). Nothing to follow alone.
   */
  follow(coherence: Coherence, reload: () => Promise<void>): Promise<void>;
  /** A clean shutdown: alone, the clock, the ids and the mark that the store was closed intact. */
  closed(clock: EmulatedClock, ids: IdGenerator): Promise<void>;
}

/** How many seeded processes started on a shared store (`meta`, never part of a state document). */
const SEEDED_STARTS = 'seeded-starts';

/** The store is this process's alone: it keeps the id generator and a clean-shutdown mark in `meta`. */
class AloneTenancy implements Tenancy {
  /** `meta.clean` as read at start, before anything is written (D-1198). */
  #clean: unknown;

  constructor(private readonly meta: MetaStore) {}

  async idSeed(seed: string | undefined): Promise<string | undefined> {
    return seed;
  }

  async savedIds(read: <T>(key: string) => Promise<T | undefined>): Promise<IdState | undefined> {
    this.#clean = await read<unknown>('clean');
    return read<IdState>('ids');
  }

  async resumeIds(ids: IdGenerator, saved: IdState | undefined, clock: Clock, lastInStore: () => Promise<IdState | undefined>): Promise<void> {
    const last = await lastInStore();
    // After a crash the saved id state may be behind the last id handed out: step past it.
    if (saved) ids.restore(this.#clean === true ? saved : { ...saved, time: Math.max(saved.time, clock.now()) + 1 });
    // Never behind an id the rows hold: a stream restored there would draw it again (D-1198).
    if (last) ids.restore(laterIds(ids.snapshot(), last));
    // Written at once, so that a second crash steps past this start's ids too.
    if (saved || last) await this.meta.set('ids', ids.snapshot());
    await this.meta.set('clean', false);
  }

  idsToSave(ids: IdGenerator): IdState {
    return ids.snapshot();
  }

  restoreIds(ids: IdGenerator, state: IdState): void {
    // Never back (CONTRACT: ids are never reused, D-1170): a reset or an import keeps the
    // stream where it is when it is ahead of the state's, so what this process handed
    // out (ids, key secrets) is not handed out again. A fresh emulator is behind any
    // state it imports, and continues that state's ids exactly.
    ids.restore(laterIds(ids.snapshot(), state));
  }

  ingestFaults(): IngestFaultQueue {
    return new IngestFaults();
  }

  faults(ids: IdGenerator): FaultRules {
    return new Faults(ids.fork('faults'));
  }

  journal(): JournalStore {
    return new Journal();
  }

  async follow(): Promise<void> {}

  async closed(clock: EmulatedClock, ids: IdGenerator): Promise<void> {
    await this.meta.set('clock', clock.snapshot());
    await this.meta.set('ids', ids.snapshot());
    await this.meta.set('clean', true);
  }
}

/** Other processes use the store too: faults and the journal are rows, memory follows coherence (D-201, D-207). */
class SharedTenancy implements Tenancy {
  constructor(
    private readonly store: Store,
    private readonly meta: MetaStore,
  ) {}

  async idSeed(seed: string | undefined): Promise<string | undefined> {
    if (seed === undefined) return undefined;
    // Processes start one at a time (the start lock, D-200): a read and a write suffice.
    const started = (await this.meta.get<number>(SEEDED_STARTS)) ?? 0;
    await this.meta.set(SEEDED_STARTS, started + 1);
    return started === 0 ? seed : `${seed}/${started}`;
  }

  async savedIds(): Promise<undefined> {
    return undefined;
  }

  async resumeIds(): Promise<void> {}

  idsToSave(): undefined {
    return undefined;
  }

  restoreIds(ids: IdGenerator, state: IdState): void {
    // Each process keeps its own stream (D-208), but never behind what it imported: two
    // emulators of one seed on fresh stores draw the same ids, so the second, importing
    // the first's state, would draw the ids of the rows it just took (D-1198).
    ids.restore(laterIds(ids.snapshot(), state));
  }

  ingestFaults(clock: Clock): IngestFaultQueue {
    return new SharedIngestFaults(this.store.db, clock);
  }

  faults(ids: IdGenerator, coherence: Coherence, clock: Clock): FaultRules {
    return new SharedFaults(this.store.db, ids.fork('faults'), coherence, clock);
  }

  journal(): JournalStore {
    return new SharedJournal(this.store.db);
  }

  async follow(coherence: Coherence, reload: () => Promise<void>): Promise<void> {
    coherence.onChange(reload);
    await reload();
  }

  // Nothing to mark: a process leaving says so through its lease (`service.leave`).
  async closed(): Promise<void> {}
}

/** The one place the emulator looks at the store's kind (D-970). */
export function storeTenancy(store: Store, meta: MetaStore): Tenancy {
  return store.shared ? new SharedTenancy(store, meta) : new AloneTenancy(meta);
}

/** The tables whose `id` the generator draws (one prefix per table, so `max(id)` is the last drawn). */
const DRAWN_ID_TABLES = [
  'workspaces',
  'api_keys',
  'jobs',
  'agents',
  'conversations',
  'chat_messages',
  'knowledge_sources',
  'projects',
  'pages',
  'assets',
  'brand_files',
] as const;

/**
 * The generator state of the last id the store's rows hold (D-1198): a `meta.ids` written
 * behind it (by hand, or by a state whose ids were) would draw those ids again, and the
 * next insert would fail on its primary key. One indexed `max(id)` per table.
 */
export async function lastIdInStore(db: Kysely<Database>): Promise<IdState | undefined> {
  let last: IdState | undefined;
  for (const table of DRAWN_ID_TABLES) {
    const row = await db
      .selectFrom(table as 'agents')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst();
    const state = typeof row?.id === 'string' ? idStateOf(row.id) : undefined;
    if (state) last = last ? laterIds(last, state) : state;
  }
  return last;
}

/** The same over a state document's rows, every table's `id` (D-1198). */
export function lastIdOfRows(tables: Record<string, readonly Record<string, unknown>[]>): IdState | undefined {
  let last: IdState | undefined;
  for (const rows of Object.values(tables)) {
    for (const row of rows) {
      const state = typeof row.id === 'string' ? idStateOf(row.id) : undefined;
      if (state) last = last ? laterIds(last, state) : state;
    }
  }
  return last;
}
