import type * as v from 'valibot';
import type { createApp } from '../src/app.js';
import { assemble, type EmulatorParts, type StoredStart } from './assemble.js';
import { createEmulatorApp } from './emulator-app.js';
import { closedFetchError, EmulatorClosedError } from './closed.js';
import type { RouteDoc } from '../src/platform/openapi.js';
import { isPostgresUrl, openStore, type DatabaseOptions } from '../src/db/database.js';
import type { WebDefinition, WebDefinitionInput } from '../src/knowledge/fetch/offline-web.js';
import { WebDefinitionSchema } from '../src/knowledge/fetch/offline-web.js';
import { type EmulatedClock, LATEST_INSTANT, type ClockState } from '../src/platform/clock.js';
import type { IdGenerator, IdState } from '../src/platform/ids.js';
import { SCOPES, type Scope } from '../src/platform/scopes.js';
import type { IngestFailureCode } from '../src/platform/ingest-failures.js';
import { finerThanMilliseconds, iso, parseIso } from '../src/platform/time.js';
import { ServiceError } from '../src/platform/service-error.js';
import { parseOrThrow } from '../src/platform/validation.js';
import type { Service } from '../src/service.js';
import { WorkspaceCreateSchema, WorkspaceSettingsPatchSchema, type WorkspaceSettingsPatch } from '../src/workspaces/workspaces.schema.js';
import type { WorkspaceRecord } from '../src/workspaces/workspaces.service.js';
import type { CreatedWorkspace, EmulatorControl } from './control-plane.routes.js';
import { RequestsLimitSchema, type LexiconView } from './control-plane.schema.js';
import { parseAllowedHosts, type AllowedHosts } from './control-plane-guard.js';
import { FaultSchema, type Fault, type FaultEntry, type FaultRequest, type FaultRules, type IngestFaultQueue, type IngestFaultQueued } from './faults.js';
import { loadFixture, type FixtureHost, type LoadedKey } from './fixture-loader.js';
import { readFixture, type Fixture } from './fixtures.js';
import type { JournalEntry, JournalStore } from './journal.js';
import type { MetaStore } from './meta.js';
import type { WorkerPoolOptions } from '../src/platform/worker-pool.js';
import type { EmulatorOptions } from './options.js';
import {
  AdvanceArgSchema,
  checkEmulatorOptions,
  FaultIdArgSchema,
  ListenOptionsSchema,
  StateTransferOptionsSchema,
  WorkspaceIdArgSchema,
} from './options-schema.js';
import { untilAborted } from '../src/platform/abortable.js';
import { SiteChat } from './sites/site-chat.js';
import { exportState, importState, type StateDocument, type StateImportOptions, type StateTransferOptions } from './state.js';
import { checkStoreFile, GATE_MARK, GATE_VERSION } from './state-gate/store-file.js';
import { Listeners, type ListeningServer } from './listeners.js';
import type { EmulatorWeb } from './web.js';
import type { Tenancy } from './tenancy.js';
import { readPrebuilt, RUNNING_FROM_SOURCES, type PrebuiltLookup, type PrebuiltState } from './prebuilt/demo-state.js';
import type { IdTap, IdCall } from './prebuilt/id-tap.js';
import { relocateTables } from './prebuilt/relocate.js';

export type { EmulatorOptions } from './options.js';
export type { CreatedWorkspace } from './control-plane.routes.js';
export { SEED_EPOCH } from './assemble.js';
export type { ListeningServer } from './listeners.js';

/** @internal What `init` needs to start the bundled demo (D-185). */
export interface DemoStart {
  tap: IdTap;
  /** The prebuilt state to start from, or why there is none; unset: load the fixtures. */
  lookup?: () => PrebuiltLookup | undefined;
  /** Called with the id calls of a fixture load. */
  record?: (calls: IdCall[]) => void;
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
  #baselineOwn = false;
  #replaySchemas: StateImportOptions['replays'];
  readonly #listeners = new Listeners();
  #closed = false;
  /** Set when `close` starts: from then on no request is answered (D-1077). */
  #closing: Promise<void> | undefined;
  #persistTail: Promise<void> = Promise.resolve();
  readonly service: Service;
  readonly #clock: EmulatedClock;
  readonly #meta: MetaStore;
  readonly #web: EmulatorWeb;
  readonly #ingestFaults: IngestFaultQueue;
  /** Names each queued ingestion failure, whatever the store keeps it in (D-1093). */
  readonly #ingestFaultIds: IdGenerator;
  readonly #tenancy: Tenancy;
  /** Jobs the drain of a clock move finished: the next `drain()` reports them (D-1094). */
  #drainedByMoves = 0;

  /** @internal `createEmulator` builds the parts. */
  constructor({ service, clock, meta, web, ingestFaults, faults, journal, guard, siteChat, tenancy }: EmulatorParts) {
    this.service = service;
    this.#clock = clock;
    this.#meta = meta;
    this.#web = web;
    this.#ingestFaults = ingestFaults;
    this.#tenancy = tenancy;
    this.faults = faults;
    this.journal = journal;
    this.siteChat = new SiteChat(service, service.ids.fork('site-chat'), siteChat, service.windowCounters('visitor'));
    this.#ingestFaultIds = service.ids.fork('ingest-faults');
    const { app, openapi } = createEmulatorApp({
      service,
      control: this,
      faults,
      journal,
      siteChat: this.siteChat,
      guard,
      fixtureKeys: () => this.fixtureKeys,
      noted: (c) => this.#listeners.note(c),
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
    // A URL or init that cannot make a request rejects, as global fetch does (D-1085).
    try {
      return this.handle(new Request(typeof input === 'string' ? new URL(input, 'http://localhost') : input, init));
    } catch (error) {
      return Promise.reject(error);
    }
  };

  /**
   * Answers a request that reached the emulator under another address (an interceptor
   * such as the MSW adapter): the URLs it hands out (signed file URLs) point under
   * `publicUrl` (`https://api.example.com/prefix`), so the caller can fetch them there.
   */
  handle(request: Request, options?: { publicUrl?: string }): Promise<Response> {
    // A stopped server refuses the connection; a closed store would answer a 500 (D-1077).
    if (this.#closing) return Promise.reject(closedFetchError());
    // As global fetch: an aborted signal sends nothing, and an abort before the answer
    // rejects with the signal's reason; the request sees it through its own signal (D-1171).
    const { signal } = request;
    if (signal.aborted) return Promise.reject(signal.reason);
    return untilAborted(this.app.fetch(request, options?.publicUrl === undefined ? undefined : { publicUrl: options.publicUrl }), signal);
  }

  /** From `close()` on, every member that answers a promise rejects it with `EmulatorClosedError` (D-1153). */
  #assertOpen(): void {
    if (this.#closing) throw new EmulatorClosedError();
  }

  /** Like `fetch`, with a path relative to `http://localhost`. */
  request(path: string, init?: RequestInit): Promise<Response> {
    try {
      return this.fetch(new Request(new URL(path, 'http://localhost'), init));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  readonly clock = {
    now: (): number => this.#clock.now(),
    get: () => ({ now: iso(this.#clock.now()), frozen: this.#clock.frozen }),
    /**
     * Moves time forward and runs what came due before resolving. A move back, past the
     * year 9000 (`LATEST_INSTANT`, D-1080), or by a fraction of a millisecond (D-1092) is
     * refused with `400 svc.request.validation_failed` and moves nothing.
     */
    advance: async (ms: number) => {
      this.#assertOpen();
      // As `POST /_emulator/clock` reads `advanceMs` (D-1176): a string or NaN is not "a move back".
      parseOrThrow(AdvanceArgSchema, { advanceMs: ms }, 'svc.request.validation_failed');
      if (this.#clock.now() + ms > LATEST_INSTANT) throw clockRefusal('advanceMs', `moves the clock past ${iso(LATEST_INSTANT)}`);
      this.#clock.advance(ms);
      await this.#persist();
      await this.#runDue();
      return this.clock.get();
    },
    set: async (instant: number | string) => {
      this.#assertOpen();
      // A string is read as `POST /_emulator/clock` reads `now` (D-1176): RFC 3339, not whatever `Date.parse` guesses.
      const target = typeof instant === 'string' ? parseIso(instant) : typeof instant === 'number' && !Number.isNaN(instant) ? instant : undefined;
      if (target === undefined) throw clockRefusal('now', 'must be an RFC 3339 date-time or epoch milliseconds');
      if (!Number.isFinite(target) || target < this.#clock.now()) throw clockRefusal('now', `time only moves forward; it is ${iso(this.#clock.now())}`);
      // A string's fraction past the millisecond is cut by `Date.parse`: refused as a number's is.
      if (!Number.isInteger(target) || (typeof instant === 'string' && finerThanMilliseconds(instant))) throw clockRefusal('now', WHOLE_MILLISECONDS);
      if (target > LATEST_INSTANT) throw clockRefusal('now', `must not be after ${iso(LATEST_INSTANT)}`);
      this.#clock.set(target);
      await this.#persist();
      await this.#runDue();
      return this.clock.get();
    },
  };

  /** A new isolated workspace and one key (all scopes unless told). */
  async createWorkspace(
    input: { name?: string | undefined; scopes?: Scope[] | undefined; plan?: string | undefined; credits?: number | undefined } = {},
  ): Promise<CreatedWorkspace> {
    this.#assertOpen();
    // Checked as the control plane checks it: a caller of the library gets the same 400.
    const checked = parseOrThrow(WorkspaceCreateSchema, input, 'svc.request.validation_failed');
    const ws = await this.service.workspaces.create(checked);
    const key = await this.service.auth.createKey(ws.id, { name: 'default', scopes: checked.scopes ?? [...SCOPES], env: 'test' });
    return { workspaceId: ws.id, apiKey: { id: key.id, prefix: key.prefix, scopes: key.scopes, secret: key.secret } };
  }

  /** A workspace's settings, or `404 svc.tenant.not_found`. */
  async getWorkspace(workspaceId: string): Promise<WorkspaceRecord> {
    this.#assertOpen();
    checkWorkspaceId(workspaceId);
    return this.service.workspaces.getWorkspaceOrThrow(workspaceId);
  }

  /**
   * Changes a workspace's settings (rate limit, daily cap, credits, plan caps). Like every
   * member answering a promise, a refusal rejects it, never throws (D-1085).
   */
  async updateWorkspace(workspaceId: string, patch: WorkspaceSettingsPatch): Promise<WorkspaceRecord> {
    this.#assertOpen();
    checkWorkspaceId(workspaceId);
    return this.service.workspaces.update(workspaceId, parseOrThrow(WorkspaceSettingsPatchSchema, patch, 'svc.request.validation_failed'));
  }

  /** The workspace's bilingual lexicon (empty before it learned one), or `404 svc.tenant.not_found`. */
  async getLexicon(workspaceId: string): Promise<LexiconView> {
    this.#assertOpen();
    checkWorkspaceId(workspaceId);
    await this.service.workspaces.getWorkspaceOrThrow(workspaceId);
    const lexicon = await this.service.knowledge.lexicons.get(workspaceId);
    const { twins, units, pairs } = lexicon.learned;
    const twinnedSources = [...(await this.service.knowledge.lexicons.twinsOf(workspaceId, lexicon)).keys()].sort();
    return { workspaceId, twins, units, twinnedSources, pairs: pairs.map(([es, en, weight]) => ({ es, en, weight })) };
  }

  /** Drops a workspace and everything in it. */
  async deleteWorkspace(workspaceId: string): Promise<void> {
    this.#assertOpen();
    checkWorkspaceId(workspaceId);
    return this.service.workspaces.delete(workspaceId);
  }

  /**
   * The last `limit` requests (1 to 1,000, default 100), newest first (the journal keeps
   * 1,000; of every process sharing the store). Another limit is refused as
   * `GET /_emulator/requests?limit=` refuses it (D-1095).
   */
  async requests(limit = 100): Promise<JournalEntry[]> {
    this.#assertOpen();
    return this.journal.recent(parseOrThrow(RequestsLimitSchema, { limit }, 'svc.request.validation_failed').limit);
  }

  /** Injects a failure (see `POST /_emulator/faults`); `ingest` queues source failures. */
  async injectFault(input: FaultRequest): Promise<Fault | IngestFaultQueued> {
    this.#assertOpen();
    const fault = parseOrThrow(FaultSchema, input, 'svc.request.validation_failed');
    if (fault.ingest === undefined) return this.faults.add(fault);
    const times = fault.times ?? 1;
    // The schema's pattern admits registered codes only.
    const queued = await this.#ingestFaults.add(this.#ingestFaultIds.next('flt'), fault.ingest as IngestFailureCode, times);
    return { id: queued.id, ingest: queued.ingest, times, remaining: queued.remaining };
  }

  /** The active faults: the request faults, then the queued ingestion failures not spent yet (D-1093). */
  async listFaults(): Promise<FaultEntry[]> {
    this.#assertOpen();
    return [...(await this.faults.list()), ...(await this.#ingestFaults.list())];
  }

  /** Removes every fault and queued ingestion failure; answers how many entries `listFaults` had. */
  async clearFaults(): Promise<number> {
    this.#assertOpen();
    const cleared = await this.faults.clear();
    return cleared + (await this.#ingestFaults.clear());
  }

  /**
   * Removes one entry of `listFaults` by its id: a request fault, or queued ingestion
   * failures (D-1196); answers it as it was listed. An id that is not a string is refused
   * (400 naming `faultId`), one the list does not have is `404 svc.resource.not_found`.
   */
  async removeFault(faultId: string): Promise<FaultEntry> {
    this.#assertOpen();
    parseOrThrow(FaultIdArgSchema, { faultId }, 'svc.request.validation_failed');
    const removed = (await this.faults.remove(faultId)) ?? (await this.#ingestFaults.remove(faultId));
    if (removed) return removed;
    throw new ServiceError('svc.resource.not_found', {
      detail: {
        en: 'No such fault: it was removed, spent, or never set (GET /_emulator/faults lists the active ones).',
        es: 'No existe ese fallo: se quitó, se agotó o nunca se inyectó (GET /_emulator/faults lista los activos).',
      },
    });
  }

  /** Replaces the offline web that URL sources are fetched from (see `PUT /_emulator/web`). */
  async setWeb(definition: WebDefinitionInput): Promise<{ pages: number; hosts: number }> {
    this.#assertOpen();
    return this.#setWeb(definition);
  }

  /** `setWeb` of a definition not typed yet (a fixture's JSON): the schema checks it all the same. */
  async #setWeb(definition: unknown): Promise<{ pages: number; hosts: number }> {
    return this.#web.set(parseOrThrow(WebDefinitionSchema, definition, 'svc.request.validation_failed'));
  }

  /** The offline web in force. */
  async getWeb(): Promise<WebDefinition> {
    this.#assertOpen();
    return this.#web.definition;
  }

  /**
   * Resolves once every queued job has finished; answers how many finished since the last
   * `drain()` answered (D-713), those a clock move ran included (D-1094).
   */
  async drain(): Promise<number> {
    this.#assertOpen();
    const ran = (await this.service.jobs.drain()) + this.#drainedByMoves;
    this.#drainedByMoves = 0;
    return ran;
  }

  /** Runs what a clock move brought due; the jobs it finished are the next `drain()`'s to report (D-1094). */
  async #runDue(): Promise<void> {
    this.#drainedByMoves += await this.service.jobs.drain();
  }

  /** The whole state; key hashes sealed unless `plainHashes` (a file for the operator's own disk). */
  async exportState(options: StateTransferOptions = {}): Promise<StateDocument> {
    this.#assertOpen();
    return exportState(this.service, this.#clock, parseOrThrow(StateTransferOptionsSchema, options, 'svc.request.validation_failed'));
  }

  /** Replaces the whole state; a document with rows this service could not have written is refused with 400 and changes nothing. */
  async importState(doc: unknown, options: StateTransferOptions = {}): Promise<void> {
    this.#assertOpen();
    // Only the caller's options: `trusted` (the prebuilt demo's, D-726) would skip the gate (D-1176).
    return this.#import(doc, parseOrThrow(StateTransferOptionsSchema, options, 'svc.request.validation_failed'));
  }

  /** Where an imported document's id state goes: restored alone, not beside other processes (D-208). */
  readonly #restoreIds = (state: IdState): void => this.#tenancy.restoreIds(this.service.ids, state);

  /** The answers of routes under `Idempotency-Key`, by status: what a stored replay may be (D-722). */
  get #replays(): NonNullable<StateImportOptions['replays']> {
    this.#replaySchemas ??= replaySchemas(this.openapi.routes);
    return this.#replaySchemas;
  }

  async #import(doc: unknown, options: Omit<StateImportOptions, 'restoreIds'>): Promise<void> {
    await importState(this.service, this.#clock, doc, { ...options, replays: this.#replays, restoreIds: this.#restoreIds });
    await this.siteChat.clear();
    await this.#persist();
  }

  /** Back to exactly the state after the fixtures loaded (for every process sharing the store). */
  async reset(): Promise<void> {
    this.#assertOpen();
    // A baseline this process exported is its own rows; one read from a store file is not (D-726).
    if (this.#baseline) await this.#import(this.#baseline, { trusted: this.#baselineOwn }).catch((error: unknown) => this.#baselineFault(error));
    await this.journal.clear();
    await this.clearFaults();
  }

  /**
   * A baseline read from the store that the gate refuses was put there by hand: the store
   * is at fault, not the caller, so reset answers `503 svc.service.unavailable` naming
   * `meta.baseline`, as for any stored value this service did not write (D-722, D-1201).
   */
  #baselineFault(error: unknown): never {
    if (!(error instanceof ServiceError) || error.code !== 'svc.request.validation_failed' || this.#baselineOwn) throw error;
    const first = error.errors?.[0];
    throw new ServiceError('svc.service.unavailable', {
      detail: {
        en: 'The state this store resets to (its meta.baseline) was not written by this service, so reset cannot go back to it. Start with a new --db file, or --import a state.',
        es: 'El estado al que se restablece este almacén (su meta.baseline) no lo escribió este servicio, así que no se puede volver a él. Empiece con un archivo --db nuevo, o con --import de un estado.',
      },
      errors: [{ field: `meta.baseline${first?.field ? `.${first.field}` : ''}`, reason: first?.reason ?? 'not a state this service wrote' }],
      cause: error,
    });
  }

  /**
   * Reloads what other processes sharing the store may have changed and this one holds
   * in memory: the clock, the offline web, the request faults (coherence, D-203).
   */
  async reloadShared(): Promise<void> {
    const clock = await this.#meta.get<ClockState>('clock');
    if (clock) this.#clock.restore(clock);
    await this.#web.reload();
    await this.faults.reload();
  }

  /**
   * How the bundled demo got into a new store: `prebuilt` (relocated from
   * `dist/demo-state.json`), or loaded from the fixtures and why not prebuilt. Unset when
   * no demo was loaded now (other fixtures, none, a state, a store already set up).
   */
  demoState: 'prebuilt' | { loaded: string } | undefined;

  /** @internal Called once by `createEmulator`; `stored`: what the store said at start, read before any write. */
  async init(fixtures: Fixture | undefined, state: unknown, demo: DemoStart, stored: StoredStart): Promise<void> {
    if (!stored.initialized || state !== undefined) {
      // A snapshot is taken as it is (its queued jobs run later); fixtures settle first.
      if (state !== undefined) await importState(this.service, this.#clock, state, { plainHashes: true, replays: this.#replays, restoreIds: this.#restoreIds });
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
      this.#baselineOwn = true;
      await this.#meta.set('baseline', this.#baseline);
      await this.#meta.set('initialized', true);
      await this.#persist();
    } else {
      // What the store held was taken at start (the saved ids, or what other processes
      // changed since: `Tenancy.resumeIds`, `Tenancy.follow`); nothing of ours to write.
      this.#baseline = stored.baseline;
    }
    // Every row in the store passed the gate (an import, the check of a file an older
    // version wrote) or was written by this service: no need to read it whole again (D-725).
    await this.#meta.set(GATE_MARK, GATE_VERSION);
  }

  /**
   * The state a load of `fixtures` would leave, from the prebuilt one (D-185): the same
   * calls on this run's id generators, their ids and the current time put in the rows.
   */
  async #startPrebuilt(fixtures: Fixture, prebuilt: PrebuiltState, tap: IdTap): Promise<void> {
    if (fixtures.web) await this.#setWeb(fixtures.web);
    const now = this.#clock.now();
    const outputs = tap.replay(prebuilt.calls);
    const tables = relocateTables(prebuilt.state.tables, outputs, prebuilt.epoch, now);
    await importState(
      this.service,
      this.#clock,
      { ...prebuilt.state, tables, clock: this.#clock.snapshot(), ids: this.service.ids.snapshot() },
      { plainHashes: true, trusted: true, restoreIds: this.#restoreIds },
    );
    this.fixtureKeys = prebuilt.keys.map((key) => ({ ...key, workspaceId: outputs.get(key.workspaceId) ?? key.workspaceId }));
  }

  /** Serves the emulator on a port (0 picks a free one); `log` gets one line per request. */
  listen(options: { port?: number; host?: string; log?: (line: string) => void } = {}): Promise<ListeningServer> {
    // A closed emulator's store is gone: a server now would answer 500s and keep the process alive.
    if (this.#closing) return Promise.reject(new EmulatorClosedError());
    // Checked as every member's input is (D-1172): a port of another type opened a Unix
    // socket named after it, a misspelt option was ignored.
    let checked: v.InferOutput<typeof ListenOptionsSchema>;
    try {
      checked = parseOrThrow(ListenOptionsSchema, options, 'svc.request.validation_failed');
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#listeners.listen(this.app.fetch, checked.port ?? 0, checked.host ?? '127.0.0.1', options.log);
  }

  /**
   * Saves the clock (announced to other processes sharing the store, which take it on
   * their next request) and, alone on the store, the id generator. Writes run in
   * order; the promise answered rejects when this one could not be written.
   */
  #persist(): Promise<void> {
    const clock = this.#clock.snapshot();
    // Processes sharing a store draw ids from their own streams: nothing to restore (D-208).
    const ids = this.#tenancy.idsToSave(this.service.ids);
    const written = this.#persistTail.then(async () => {
      if (this.#closed) return;
      await this.#meta.set('clock', clock, { announce: true });
      if (ids) await this.#meta.set('ids', ids);
    });
    this.#persistTail = written.catch((error) => this.service.settings.log('could not persist emulator meta', error));
    return written;
  }

  /**
   * Stops servers and jobs, records a clean shutdown, and closes the store intact.
   * Requests from then on are refused as a stopped server's (D-1077); calling it again
   * answers the same promise.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    // Servers take no new connection, the requests under way end (a chat stream undoes
    // its turn and says so, D-1163), and only then are the connections cut.
    const servers = this.#listeners.stopAccepting();
    await this.service.endRequests();
    await this.#listeners.cutConnections();
    await servers;
    await this.service.stop();
    await this.#persist().catch(() => {});
    this.#closed = true;
    await this.#persistTail;
    await this.#tenancy.closed(this.#clock, this.service.ids);
    await this.service.leave();
    await this.service.store.close();
  }
}

/** Why a fraction of a millisecond is refused: ids and state documents carry whole ones (D-723, D-1092). */
const WHOLE_MILLISECONDS = 'must be whole milliseconds';

/** A member's workspace id that is not a string: `400` naming it, where a string no workspace has is `404` (D-1176). */
function checkWorkspaceId(workspaceId: unknown): void {
  parseOrThrow(WorkspaceIdArgSchema, { workspaceId }, 'svc.request.validation_failed');
}

/** A clock move refused, naming the field of `POST /_emulator/clock` at fault. */
function clockRefusal(field: 'advanceMs' | 'now', reason: string): ServiceError {
  return new ServiceError('svc.request.validation_failed', { errors: [{ field, reason }] });
}

/** The 2xx answers of every route under `Idempotency-Key`, by status. */
function replaySchemas(routes: readonly RouteDoc[]): NonNullable<StateImportOptions['replays']> {
  const out = new Map<number, v.GenericSchema<unknown, unknown>[]>();
  for (const route of routes) {
    if (!route.idempotent) continue;
    for (const [status, response] of Object.entries(route.responses)) {
      if (Number(status) >= 200 && Number(status) < 300 && response.schema) out.set(Number(status), [...(out.get(Number(status)) ?? []), response.schema]);
    }
  }
  return out;
}

/** Builds and starts an emulator; a wrong option is refused first, by name (`EmulatorOptionsError`, D-743). */
export async function createEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  checkEmulatorOptions(options);
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
    // Worker limits can fail a load that the prebuilt state would not; how many threads
    // there are, how long idle ones live and how nice they run cannot (the CLI sets the
    // idle time, D-1221).
    Object.keys(options.workers ?? {}).every((name) => LOAD_NEUTRAL_WORKER_OPTIONS.has(name as keyof WorkerPoolOptions))
  );
}

const LOAD_NEUTRAL_WORKER_OPTIONS = new Set<keyof WorkerPoolOptions>(['maxThreads', 'idleTimeoutMs', 'niceIncrement']);

/** @internal `createEmulator`, with the demo's start chosen by the caller. */
export async function openEmulator(options: EmulatorOptions = {}, demo: DemoOptions = {}): Promise<Emulator> {
  let allowedHosts: AllowedHosts;
  try {
    allowedHosts = parseAllowedHosts(options.allowedHosts === 'all' ? ['all'] : (options.allowedHosts ?? []));
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
        ? isPostgresUrl(options.db)
          ? { kind: 'postgres', url: options.db }
          : { kind: 'file', path: options.db }
        : options.db;
  // A file an older version wrote is checked once, before it is opened (D-725); an
  // import replaces its rows, so they need no check then.
  if (dbOptions.kind === 'file' && options.state === undefined) await checkStoreFile(dbOptions.path);
  const store = await openStore(dbOptions, options.log);
  let emulator: Emulator | undefined;
  try {
    // Processes starting together on one shared store start one at a time: the first
    // loads the fixtures, the others find them loaded (decisions, D-209).
    await store.exclusive('start', async () => {
      const { parts, tap, stored } = await assemble(store, options, allowedHosts, demo);
      const started = new Emulator(parts);
      emulator = started;
      await parts.tenancy.follow(parts.service.coherence, () => started.reloadShared());
      const lookup = (): PrebuiltLookup | undefined => {
        if (demo.prebuilt === 'none' || !fixtures || !prebuiltFits(options, dbOptions)) return undefined;
        if (demo.prebuilt) return { state: demo.prebuilt };
        return RUNNING_FROM_SOURCES ? undefined : readPrebuilt(fixtures);
      };
      await emulator.init(fixtures, options.state, { tap, lookup, ...(demo.record && { record: demo.record }) }, stored);
    });
  } catch (error) {
    // Closed once the lock is let go (closing waits for every connection).
    if (emulator) await emulator.close().catch(() => {});
    else await store.close().catch(() => {});
    throw error;
  }
  return emulator!;
}
