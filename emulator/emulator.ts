import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { createApp } from '../src/app.js';
import { isPostgresUrl, openStore, type DatabaseOptions, type Store } from '../src/db/database.js';
import type { WebDefinition } from '../src/knowledge/fetch/offline-web.js';
import { WebDefinitionSchema } from '../src/knowledge/fetch/offline-web.js';
import { EmulatedClock, type ClockState } from '../src/platform/clock.js';
import { createIdGenerator, type IdState } from '../src/platform/ids.js';
import { SCOPES, type Scope } from '../src/platform/scopes.js';
import { resolveSettings } from '../src/platform/settings.js';
import type { IngestFailureCode } from '../src/platform/ingest-failures.js';
import { iso } from '../src/platform/time.js';
import { parseOrThrow } from '../src/platform/validation.js';
import { createService, type Service } from '../src/service.js';
import { WorkspaceSettingsPatchSchema, type WorkspaceSettingsPatch } from '../src/workspaces/workspaces.schema.js';
import type { WorkspaceRecord } from '../src/workspaces/workspaces.service.js';
import { registerControlPlane, type CreatedWorkspace, type EmulatorControl, type LexiconView } from './control-plane.routes.js';
import { controlPlaneGuard, parseAllowedHosts, type AllowedHosts } from './control-plane-guard.js';
import { Faults, FaultSchema, IngestFaults, type Fault, type FaultRequest, type FaultRules, type IngestFaultQueue } from './faults.js';
import { SharedFaults, SharedIngestFaults } from './shared-faults.js';
import { SharedJournal } from './shared-journal.js';
import { loadFixture, type FixtureHost, type LoadedKey } from './fixture-loader.js';
import { readFixture, type Fixture } from './fixtures.js';
import { Journal, type JournalEntry, type JournalStore } from './journal.js';
import { metaStore, type MetaStore } from './meta.js';
import type { EmulatorOptions } from './options.js';
import { siteChatLimits, type SiteChatLimits } from './sites/site-chat-limits.js';
import { SiteChat } from './sites/site-chat.js';
import { createSiteHandler } from './sites/site-handler.js';
import { exportState, importState, type StateDocument, type StateTransferOptions } from './state.js';
import { registerErrorPages } from './docs/error-pages.js';
import { registerHomePage } from './docs/home-page.js';
import { RequestLog } from './request-log.js';
import { seedSecret } from './seal.js';
import { registerInspectRoutes } from './ui/inspect.routes.js';
import { serviceInspector } from './ui/inspector.js';
import { isUiFile } from './ui/ui-paths.js';
import { registerUi } from './ui/ui.routes.js';
import { EmulatorWeb } from './web.js';
import { readPrebuilt, RUNNING_FROM_SOURCES, type PrebuiltLookup, type PrebuiltState } from './prebuilt/demo-state.js';
import { IdTap, type IdCall } from './prebuilt/id-tap.js';
import { relocateTables } from './prebuilt/relocate.js';

export type { EmulatorOptions } from './options.js';
export type { CreatedWorkspace } from './control-plane.routes.js';

/** @internal What `init` needs to start the bundled demo (D-185). */
export interface DemoStart {
  tap: IdTap;
  /** The prebuilt state to start from, or why there is none; unset: load the fixtures. */
  lookup?: () => PrebuiltLookup | undefined;
  /** Called with the id calls of a fixture load. */
  record?: (calls: IdCall[]) => void;
}

/** Where a seeded emulator's frozen clock starts. */
export const SEED_EPOCH = Date.parse('2026-01-01T00:00:00.000Z');

export interface ListeningServer {
  url: string;
  port: number;
  host: string;
  close(): Promise<void>;
}

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
}

/**
 * The emulator: the whole service over one store, its HTTP app with the control plane,
 * the request journal, the loaded fixtures (the state `reset` returns to) and servers.
 * It owns what only an emulator has (the emulated clock, injected faults, the offline
 * web) and hands the service what it needs of them as ports.
 */
export class Emulator implements EmulatorControl, FixtureHost {
  readonly journal: JournalStore;
  readonly faults: FaultRules;
  readonly siteChat: SiteChat;
  readonly app: ReturnType<typeof createApp>['app'];
  readonly openapi: ReturnType<typeof createApp>['openapi'];
  /** Keys the fixtures created, for the start-up banner. */
  fixtureKeys: LoadedKey[] = [];
  #baseline: StateDocument | undefined;
  readonly #servers = new Set<ServerType>();
  #closed = false;
  #persistTail: Promise<void> = Promise.resolve();
  readonly service: Service;
  readonly #clock: EmulatedClock;
  readonly #meta: MetaStore;
  readonly #web: EmulatorWeb;
  readonly #ingestFaults: IngestFaultQueue;
  #requestLog: RequestLog | undefined;

  /** @internal `createEmulator` builds the parts. */
  constructor({ service, clock, meta, web, ingestFaults, faults, journal, guard, siteChat }: EmulatorParts) {
    this.service = service;
    this.#clock = clock;
    this.#meta = meta;
    this.#web = web;
    this.#ingestFaults = ingestFaults;
    this.faults = faults;
    this.journal = journal;
    this.siteChat = new SiteChat(service, service.ids.fork('site-chat'), siteChat, service.windowCounters('visitor'));
    const sites = createSiteHandler({
      service,
      chat: this.siteChat,
      brand: async (workspaceId, projectId, origin) => {
        const brand = await service.brand.getBrand(workspaceId, projectId, origin);
        return {
          logoUrl: brand.logo?.url,
          faviconUrl: brand.favicon?.url,
          navbar: { links: brand.navbar.links, cta: brand.navbar.cta ?? undefined },
          footer: brand.footer,
        };
      },
    });
    const record = this.journal.recorder(service.clock);
    const { app, openapi } = createApp(service, {
      intercept: (c) => this.faults.intercept(c) ?? sites.serve(c),
      problemPage: (c, error) => sites.problemPage(c, error),
      onResponse: (c) => {
        this.#requestLog?.note(c);
        return record(c);
      },
      extend: (app, router) => {
        const guarded = controlPlaneGuard({ ...guard, tokenFree: isUiFile });
        app.use('/_emulator/*', guarded);
        app.use('/workspaces/*', guarded);
        registerControlPlane(router, this);
        registerInspectRoutes(router, serviceInspector(service, () => this.fixtureKeys));
        registerUi(app);
        registerHomePage(router, service);
        registerErrorPages(router);
      },
    });
    this.app = app;
    this.openapi = openapi;
  }

  /**
   * Answers a request in process, no port needed. Takes what global `fetch` takes (a
   * string, URL or Request, plus init), so it can be handed to any client that accepts a
   * fetch function; a relative string resolves against `http://localhost`.
   */
  fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    // A Request from another copy of undici is not `instanceof Request`; Hono reads it all the same.
    if (init === undefined && typeof input === 'object' && !(input instanceof URL)) return this.handle(input);
    return this.handle(new Request(typeof input === 'string' ? new URL(input, 'http://localhost') : input, init));
  };

  /**
   * Answers a request that reached the emulator under another address (an interceptor
   * such as the MSW adapter): the URLs it hands out (signed file URLs) point under
   * `publicUrl` (`https://api.example.com/prefix`), so the caller can fetch them there.
   */
  handle(request: Request, options?: { publicUrl?: string }): Promise<Response> {
    return Promise.resolve(this.app.fetch(request, options?.publicUrl === undefined ? undefined : { publicUrl: options.publicUrl }));
  }

  /** Like `fetch`, with a path relative to `http://localhost`. */
  request(path: string, init?: RequestInit): Promise<Response> {
    return this.fetch(new Request(new URL(path, 'http://localhost'), init));
  }

  readonly clock = {
    now: (): number => this.#clock.now(),
    get: () => ({ now: iso(this.#clock.now()), frozen: this.#clock.frozen }),
    /** Moves time forward and runs what came due before resolving. */
    advance: async (ms: number) => {
      this.#clock.advance(ms);
      await this.#persist();
      await this.drain();
      return this.clock.get();
    },
    set: async (instant: number | string) => {
      this.#clock.set(typeof instant === 'string' ? Date.parse(instant) : instant);
      await this.#persist();
      await this.drain();
      return this.clock.get();
    },
  };

  /** A new isolated workspace and one key (all scopes unless told). */
  async createWorkspace(input: { name?: string | undefined; scopes?: Scope[] | undefined; plan?: string | undefined; credits?: number | undefined } = {}): Promise<CreatedWorkspace> {
    const ws = await this.service.workspaces.create(input);
    const key = await this.service.auth.createKey(ws.id, { name: 'default', scopes: input.scopes ?? [...SCOPES], env: 'test' });
    return { workspaceId: ws.id, apiKey: { id: key.id, prefix: key.prefix, scopes: key.scopes, secret: key.secret } };
  }

  /** A workspace's settings, or `404 svc.tenant.not_found`. */
  getWorkspace(workspaceId: string): Promise<WorkspaceRecord> {
    return this.service.workspaces.getWorkspaceOrThrow(workspaceId);
  }

  /** Changes a workspace's settings (rate limit, daily cap, credits, plan caps). */
  updateWorkspace(workspaceId: string, patch: WorkspaceSettingsPatch): Promise<WorkspaceRecord> {
    return this.service.workspaces.update(workspaceId, parseOrThrow(WorkspaceSettingsPatchSchema, patch, 'svc.request.validation_failed'));
  }

  /** The workspace's bilingual lexicon (empty before it learned one), or `404 svc.tenant.not_found`. */
  async getLexicon(workspaceId: string): Promise<LexiconView> {
    await this.service.workspaces.getWorkspaceOrThrow(workspaceId);
    const { twins, units, pairs } = (await this.service.knowledge.lexicons.get(workspaceId)).learned;
    return { workspaceId, twins, units, pairs: pairs.map(([es, en, weight]) => ({ es, en, weight })) };
  }

  /** Drops a workspace and everything in it. */
  deleteWorkspace(workspaceId: string): Promise<void> {
    return this.service.workspaces.delete(workspaceId);
  }

  /** The last requests, newest first (the journal keeps 1,000; of every process sharing the store). */
  async requests(limit = 100): Promise<JournalEntry[]> {
    return this.journal.recent(limit);
  }

  /** Injects a failure (see `POST /_emulator/faults`); `ingest` queues source failures. */
  async injectFault(input: FaultRequest): Promise<Fault | { ingest: string; times: number }> {
    const fault = parseOrThrow(FaultSchema, input, 'svc.request.validation_failed');
    if (fault.ingest === undefined) return this.faults.add(fault);
    const times = fault.times ?? 1;
    // The schema's pattern admits registered codes only.
    await this.#ingestFaults.add(fault.ingest as IngestFailureCode, times);
    return { ingest: fault.ingest, times };
  }

  /** The active request faults. */
  async listFaults(): Promise<Fault[]> {
    return this.faults.list();
  }

  /** Removes every fault and queued ingestion failure; answers how many faults there were. */
  async clearFaults(): Promise<number> {
    const cleared = await this.faults.clear();
    await this.#ingestFaults.clear();
    return cleared;
  }

  /** Replaces the offline web that URL sources are fetched from (see `PUT /_emulator/web`). */
  setWeb(definition: unknown): Promise<{ pages: number; hosts: number }> {
    return this.#web.set(parseOrThrow(WebDefinitionSchema, definition, 'svc.request.validation_failed'));
  }

  /** The offline web in force. */
  async getWeb(): Promise<WebDefinition> {
    return this.#web.definition;
  }

  /** Resolves once every queued job has finished; answers how many ran. */
  drain(): Promise<number> {
    return this.service.jobs.drain();
  }

  /** The whole state; key hashes sealed unless `plainHashes` (a file for the operator's own disk). */
  exportState(options: StateTransferOptions = {}): Promise<StateDocument> {
    return exportState(this.service, this.#clock, options);
  }

  async importState(doc: unknown, options: StateTransferOptions = {}): Promise<void> {
    await importState(this.service, this.#clock, doc, options);
    await this.siteChat.clear();
    await this.#persist();
  }

  /** Back to exactly the state after the fixtures loaded (for every process sharing the store). */
  async reset(): Promise<void> {
    if (this.#baseline) await this.importState(this.#baseline);
    await this.journal.clear();
    await this.clearFaults();
  }

  /**
   * Reloads what other processes sharing the store may have changed and this one holds
   * in memory: the clock, the offline web, the request faults (coherence, D-203).
   */
  async reloadShared(): Promise<void> {
    const clock = await this.#meta.get<ClockState>('clock');
    if (clock) this.#clock.restore(clock);
    await this.#web.reload();
    if (this.faults instanceof SharedFaults) await this.faults.reload();
  }

  /**
   * How the bundled demo got into a new store: `prebuilt` (relocated from
   * `dist/demo-state.json`), or loaded from the fixtures and why not prebuilt. Unset when
   * no demo was loaded now (other fixtures, none, a state, a store already set up).
   */
  demoState: 'prebuilt' | { loaded: string } | undefined;

  /** @internal Called once by `createEmulator`. */
  async init(fixtures: Fixture | undefined, state?: unknown, demo?: DemoStart): Promise<void> {
    const initialized = await this.#meta.get<boolean>('initialized');
    if (!initialized || state !== undefined) {
      // A snapshot is taken as it is (its queued jobs run later); fixtures settle first.
      if (state !== undefined) await importState(this.service, this.#clock, state, { plainHashes: true });
      else {
        const found = fixtures && demo?.lookup?.();
        if (found && 'state' in found) {
          await this.#startPrebuilt(fixtures!, found.state, demo!.tap);
          this.demoState = 'prebuilt';
        } else {
          if (found) this.demoState = { loaded: found.why };
          if (demo?.record) demo.tap.record();
          if (fixtures) this.fixtureKeys = await loadFixture(this, fixtures);
        }
        await this.drain();
        if (demo?.record) demo.record(demo.tap.take());
      }
      this.#baseline = await this.exportState();
      await this.#meta.set('baseline', this.#baseline);
      await this.#meta.set('initialized', true);
      await this.#persist();
    } else {
      this.#baseline = await this.#meta.get<StateDocument>('baseline');
      // Another process may have moved the clock meanwhile: take it rather than write ours.
      if (this.service.store.shared) await this.reloadShared();
      else await this.#persist();
    }
  }

  /**
   * The state a load of `fixtures` would leave, from the prebuilt one (D-185): the same
   * calls on this run's id generators, their ids and the current time put in the rows.
   */
  async #startPrebuilt(fixtures: Fixture, prebuilt: PrebuiltState, tap: IdTap): Promise<void> {
    if (fixtures.web) await this.setWeb(fixtures.web);
    const now = this.#clock.now();
    const outputs = tap.replay(prebuilt.calls);
    const tables = relocateTables(prebuilt.state.tables, outputs, prebuilt.epoch, now);
    await importState(this.service, this.#clock, { ...prebuilt.state, tables, clock: this.#clock.snapshot(), ids: this.service.ids.snapshot() }, { plainHashes: true });
    this.fixtureKeys = prebuilt.keys.map((key) => ({ ...key, workspaceId: outputs.get(key.workspaceId) ?? key.workspaceId }));
  }

  /** Serves the emulator on a port (0 picks a free one); `log` gets one line per request. */
  listen(options: { port?: number; host?: string; log?: (line: string) => void } = {}): Promise<ListeningServer> {
    const host = options.host ?? '127.0.0.1';
    return new Promise((resolve, reject) => {
      const server = serve({ fetch: this.app.fetch, port: options.port ?? 0, hostname: host }, (info: AddressInfo) => {
        const shownHost = host.includes(':') ? `[${host}]` : host;
        resolve({
          url: `http://${shownHost}:${info.port}`,
          port: info.port,
          host,
          close: () => this.#closeServer(server),
        });
      });
      server.once('error', reject);
      if (options.log) (this.#requestLog ??= new RequestLog()).attach(server, options.log);
      this.#servers.add(server);
    });
  }

  #closeServer(server: ServerType): Promise<void> {
    this.#servers.delete(server);
    return new Promise((resolve) => {
      server.close(() => resolve());
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
    });
  }

  /**
   * Saves the clock (announced to other processes sharing the store, which take it on
   * their next request) and, alone on the store, the id generator. Writes run in
   * order; the promise answered rejects when this one could not be written.
   */
  #persist(): Promise<void> {
    const clock = this.#clock.snapshot();
    // Processes sharing a store draw ids from their own streams: nothing to restore (D-208).
    const ids = this.service.store.shared ? undefined : this.service.ids.snapshot();
    const written = this.#persistTail.then(async () => {
      if (this.#closed) return;
      await this.#meta.set('clock', clock, { announce: true });
      if (ids) await this.#meta.set('ids', ids);
    });
    this.#persistTail = written.catch((error) => this.service.settings.log('could not persist emulator meta', error));
    return written;
  }

  /** Stops servers and jobs, records a clean shutdown, and closes the store intact. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await Promise.all([...this.#servers].map((s) => this.#closeServer(s)));
    await this.service.stop();
    await this.#persist().catch(() => {});
    this.#closed = true;
    await this.#persistTail;
    if (!this.service.store.shared) {
      await this.#meta.set('clock', this.#clock.snapshot());
      await this.#meta.set('ids', this.service.ids.snapshot());
      await this.#meta.set('clean', true);
    }
    await this.service.leave();
    await this.service.store.close();
  }
}

/** Builds and starts an emulator. */
export function createEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  return openEmulator(options);
}

/** How the bundled demo starts (D-185, D-186); `createEmulator` decides, the build and tests set it. */
export interface DemoOptions {
  /** Where a seeded clock stands still at first (the build loads its template elsewhere). Default `SEED_EPOCH`. */
  epoch?: number;
  /** The prebuilt state to start from, or `none` to load the fixtures. Default: `dist/demo-state.json` when it may be used. */
  prebuilt?: PrebuiltState | 'none';
  /** Called with every id and secret a fixture load drew (the build records its template). */
  record?: (calls: IdCall[]) => void;
  /** Called with the tapped id generator (the build compares where its streams stand). */
  tap?: (tap: IdTap) => void;
}

/**
 * The prebuilt demo fits only a load it could have come from: the bundled demo, loaded by
 * the built package into a new SQLite store with the default embedder, translator, chat
 * model and worker limits, and the offline web (D-186).
 */
function prebuiltFits(options: EmulatorOptions, dbOptions: DatabaseOptions): boolean {
  return (
    options.fixtures === 'demo' &&
    options.state === undefined &&
    (dbOptions.kind === 'memory' || dbOptions.kind === 'file') &&
    !options.liveFetch &&
    options.embedder === undefined &&
    options.translator === undefined &&
    options.chatModel === undefined &&
    // Worker limits can fail a load that the prebuilt state would not.
    options.workers === undefined
  );
}

/** @internal `createEmulator`, with the demo's start chosen by the caller. */
export async function openEmulator(options: EmulatorOptions = {}, demo: DemoOptions = {}): Promise<Emulator> {
  let allowedHosts: AllowedHosts;
  try {
    allowedHosts = parseAllowedHosts(options.allowedHosts === 'all' ? ['all'] : options.allowedHosts ?? []);
  } catch (error) {
    throw new TypeError(`allowedHosts: ${(error as Error).message}`);
  }
  // Read fixtures first: a bad fixture file must stop us before anything is created.
  const fixtures =
    options.fixtures === undefined || options.fixtures === 'none'
      ? undefined
      : typeof options.fixtures === 'string'
        ? readFixture(options.fixtures)
        : readFixture(options.fixtures as unknown);
  const dbOptions: DatabaseOptions =
    options.db === undefined
      ? { kind: 'memory' }
      : typeof options.db === 'string'
        ? isPostgresUrl(options.db) ? { kind: 'postgres', url: options.db } : { kind: 'file', path: options.db }
        : options.db;
  const store = await openStore(dbOptions, options.log);
  let emulator: Emulator | undefined;
  try {
    // Processes starting together on one shared store start one at a time: the first
    // loads the fixtures, the others find them loaded (decisions, D-209).
    await store.exclusive('start', async () => {
      const parts = await assemble(store, options, allowedHosts, demo);
      emulator = parts.emulator;
      const lookup = (): PrebuiltLookup | undefined => {
        if (demo.prebuilt === 'none' || !fixtures || !prebuiltFits(options, dbOptions)) return undefined;
        if (demo.prebuilt) return { state: demo.prebuilt };
        return RUNNING_FROM_SOURCES ? undefined : readPrebuilt(fixtures);
      };
      await emulator.init(fixtures, options.state, { tap: parts.tap, lookup, ...(demo.record && { record: demo.record }) });
    });
  } catch (error) {
    // Closed once the lock is let go (closing waits for every connection).
    if (emulator) await emulator.close().catch(() => {});
    else await store.close().catch(() => {});
    throw error;
  }
  return emulator!;
}

/** The emulator's parts over an open store, its service started. */
async function assemble(store: Store, options: EmulatorOptions, allowedHosts: AllowedHosts, demo: DemoOptions): Promise<{ emulator: Emulator; tap: IdTap }> {
  let service: Service | undefined;
  const meta = metaStore(store.db, () => service?.coherence);
  const seed = options.seed === undefined ? undefined : String(options.seed);

  const clockState = await meta.get<ClockState>('clock');
  const clock = seed !== undefined ? new EmulatedClock({ frozenAt: demo.epoch ?? SEED_EPOCH }) : new EmulatedClock();
  if (clockState) clock.restore(clockState);

  // Sharing a store, each process draws ids from its own stream, or two seeded ones
  // would hand out the same ids (decisions, D-208).
  const processId = store.shared ? `ins_${randomBytes(12).toString('hex')}` : undefined;
  // Tapped so that a prebuilt demo can make the calls a load would have made (D-185).
  const tap = new IdTap(createIdGenerator({ clock, seed: seed !== undefined && processId ? `${seed}/${processId}` : seed }));
  const ids = tap.ids;
  demo.tap?.(tap);
  if (!store.shared) {
    const idState = await meta.get<IdState>('ids');
    if (idState) {
      const clean = await meta.get<boolean>('clean');
      // After a crash the saved id state may be behind the last id handed out: step past it.
      ids.restore(clean ? idState : { ...idState, time: Math.max(idState.time, clock.now()) + 1 });
    }
    await meta.set('clean', false);
  }

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
    log: options.log,
  });
  const siteChat = siteChatLimits(options.siteChat);
  const web = await EmulatorWeb.load(meta);
  const ingestFaults: IngestFaultQueue = store.shared ? new SharedIngestFaults(store.db, ids.fork('ingest-faults'), clock) : new IngestFaults();
  service = createService({
    db: store,
    clock,
    ids,
    settings,
    processId,
    ports: { embedder: options.embedder, translator: options.translator, chatModel: options.chatModel, web, ingestFaults: ingestFaults.take, clockMoves: clock },
  });
  const faults: FaultRules = store.shared ? new SharedFaults(store.db, service.ids.fork('faults'), service.coherence, clock) : new Faults(service.ids.fork('faults'));
  const journal: JournalStore = store.shared ? new SharedJournal(store.db) : new Journal();
  await service.start();
  const emulator = new Emulator({ service, clock, meta, web, ingestFaults, faults, journal, guard: { adminToken: options.adminToken, allowedHosts }, siteChat });
  service.coherence.onChange(() => emulator.reloadShared());
  // What changed between the reads above and coherence starting is read once more.
  if (store.shared) await emulator.reloadShared();
  return { emulator, tap };
}
