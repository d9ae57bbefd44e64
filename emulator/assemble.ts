import { randomBytes } from 'node:crypto';
import { StoreOpenError, type Store } from '../src/db/database.js';
import { EmulatedClock, type ClockState } from '../src/platform/clock.js';
import { createIdGenerator } from '../src/platform/ids.js';
import { resolveSettings } from '../src/platform/settings.js';
import { createService, type Service } from '../src/service.js';
import type { AllowedHosts } from './control-plane-guard.js';
import type { FaultRules, IngestFaultQueue } from './faults.js';
import type { JournalStore } from './journal.js';
import { metaStore, type MetaStore } from './meta.js';
import type { EmulatorOptions } from './options.js';
import { seedText } from './options-schema.js';
import { IdTap } from './prebuilt/id-tap.js';
import { seedSecret } from './seal.js';
import { siteChatLimits, type SiteChatLimits } from './sites/site-chat-limits.js';
import type { StateDocument } from './state.js';
import { clockAndIdFaults } from './state-gate/gate.js';
import { lastIdInStore, storeTenancy, type Tenancy } from './tenancy.js';
import { EmulatorWeb } from './web.js';

/** Where a seeded emulator's frozen clock starts. */
export const SEED_EPOCH = Date.parse('2026-01-01T00:00:00.000Z');

/** What an emulator is made of; `createEmulator` builds them. */
export interface EmulatorParts {
  service: Service;
  /** The emulated clock the service runs on; the emulator moves, saves and restores it. */
  clock: EmulatedClock;
  meta: MetaStore;
  /** The offline web URL sources are fetched from (the service's `web` port). */
  web: EmulatorWeb;
  /** Queued ingestion failures (the service's `ingestFaults` port). */
  ingestFaults: IngestFaultQueue;
  /** Request faults: memory, or the store when processes share it. */
  faults: FaultRules;
  /** The request journal: memory, or the store when processes share it. */
  journal: JournalStore;
  guard: { adminToken: string | undefined; allowedHosts: AllowedHosts };
  siteChat: SiteChatLimits;
  /** Alone on the store or beside other processes: what each step of the emulator's life does (D-970). */
  tenancy: Tenancy;
}

/** What a store said of its setup at start (D-1198): whether it was set up, and the state a reset goes back to. */
export interface StoredStart {
  initialized: boolean;
  baseline: StateDocument | undefined;
}

/** How the demo's start reaches the parts: where a seeded clock stands still, who sees the tapped ids. */
export interface AssembleDemo {
  epoch?: number;
  tap?: (tap: IdTap) => void;
}

/**
 * The emulator's parts over an open store, its service started: what `createEmulator`
 * reads from the store and the options before anything is written (D-723, D-1151,
 * D-1198), the clock and ids, the settings, the service and its ports.
 */
export async function assemble(
  store: Store,
  options: EmulatorOptions,
  allowedHosts: AllowedHosts,
  demo: AssembleDemo,
): Promise<{ parts: EmulatorParts; tap: IdTap; stored: StoredStart }> {
  let service: Service | undefined;
  const meta = metaStore(store.db, () => service?.coherence);
  const tenancy = storeTenancy(store, meta);
  // A string of digits is the number it writes: `"01"` is the seed 1 (D-1096).
  const seed = options.seed === undefined ? undefined : seedText(options.seed);

  const readMeta = <T>(key: string): Promise<T | undefined> =>
    meta.get<T>(key).catch(() => {
      throw new StoreOpenError(`cannot use ${store.where}: its meta.${key} is not JSON`);
    });
  const clockState = await readMeta<ClockState>('clock');
  const idState = await tenancy.savedIds(readMeta);
  // Read before anything is written: a value put there by hand stops the start, naming
  // it, with the store as it was (D-1151, D-1198).
  const initialized = (await readMeta<unknown>('initialized')) === true;
  const baseline = initialized ? await readMeta<StateDocument>('baseline') : undefined;
  // A clock or id state written into the store by hand stops the start, naming it (D-723).
  const metaFaults = clockAndIdFaults({ ...(clockState && { clock: clockState }), ...(idState && { ids: idState }) });
  if (metaFaults.length) throw new StoreOpenError(`cannot use ${store.where}: its meta.${metaFaults[0]!.field} cannot be read (${metaFaults[0]!.reason})`);
  // The secret and the offline web are read before anything is written: a value put there
  // by hand stops the start, naming it, and leaves the store as it was (D-1151).
  const storedSecret = await readMeta<unknown>('secret');
  if (storedSecret !== undefined && (typeof storedSecret !== 'string' || !/^[0-9a-f]{64}$/.test(storedSecret))) {
    throw new StoreOpenError(`cannot use ${store.where}: its meta.secret is not a secret svc-emulator writes (64 hexadecimal digits); nothing was changed`);
  }
  const web = await EmulatorWeb.load(meta, store.where);
  const clock = seed !== undefined ? new EmulatedClock({ frozenAt: demo.epoch ?? SEED_EPOCH }) : new EmulatedClock();
  if (clockState) clock.restore(clockState);

  // Sharing a store, each process draws ids from its own stream (decisions, D-208, D-972).
  const idSeed = await tenancy.idSeed(seed);
  // Tapped so that a prebuilt demo can make the calls a load would have made (D-185).
  const tap = new IdTap(createIdGenerator({ clock, ...(idSeed !== undefined && { seed: idSeed }) }));
  const ids = tap.ids;
  demo.tap?.(tap);
  await tenancy.resumeIds(ids, idState, clock, () => lastIdInStore(store.db));

  // Processes starting together agree on the first secret written.
  const secret = await meta.setOnce('secret', seed !== undefined ? seedSecret(seed) : randomBytes(32).toString('hex'));

  const settings = resolveSettings({
    secret,
    siteDomain: options.siteDomain,
    docsUrl: options.docsUrl,
    liveFetch: options.liveFetch,
    jobConcurrency: options.jobConcurrency,
    workers: options.workers,
    leaseMs: options.leaseMs,
    lexiconWaitMs: options.lexiconWaitMs,
    log: options.log,
  });
  const siteChat = siteChatLimits(options.siteChat);
  const ingestFaults = tenancy.ingestFaults(clock);
  service = createService({
    db: store,
    clock,
    ids,
    settings,
    ports: {
      embedder: options.embedder,
      translator: options.translator,
      chatModel: options.chatModel,
      web,
      ingestFaults: ingestFaults.take,
      clockMoves: clock,
    },
  });
  const faults = tenancy.faults(service.ids, service.coherence, clock);
  const journal = tenancy.journal();
  await service.start();
  return {
    parts: { service, clock, meta, web, ingestFaults, faults, journal, guard: { adminToken: options.adminToken, allowedHosts }, siteChat, tenancy },
    tap,
    stored: { initialized, baseline },
  };
}
