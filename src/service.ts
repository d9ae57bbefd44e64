import { randomUUID } from 'node:crypto';
import type { Store } from './db/database.js';
import { EmulatedClock, type Clock } from './platform/clock.js';
import type { IdGenerator } from './platform/ids.js';
import type { Settings } from './platform/settings.js';
import { Cursors } from './platform/pagination.js';
import { IdempotencyStore } from './platform/idempotency.js';
import { RateLimiter } from './platform/rate-limit.js';
import { LocalCoherence, type Coherence } from './platform/coherence.js';
import { MemoryWindowCounters, type WindowCounters } from './platform/counters.js';
import { SharedProcess } from './platform/shared-process.js';
import { SqlCoherence } from './platform/sql-coherence.js';
import { SqlWindowCounters } from './platform/sql-counters.js';
import { LeasedClaims } from './jobs/leased-claims.js';
import { SqlActivity } from './workspaces/sql-activity.js';
import { WorkerPool } from './platform/worker-pool.js';
import { JobQueue, type ClockMoves } from './jobs/queue.js';
import { DEFAULT_WORKSPACE, type WorkspaceDefaults } from './plans/plans.js';
import { WorkspacesService } from './workspaces/workspaces.service.js';
import { AuthService } from './auth/auth.service.js';
import { AgentsService } from './agents/agents.service.js';
import { RetrievalService } from './retrieval/retrieval.service.js';
import { ChatService } from './chat/chat.service.js';
import type { ChatModel } from './chat/chat-model.js';
import { createResponder } from './chat/responder.js';
import type { CoreDeps } from './core.js';
import { InFlight } from './platform/in-flight.js';
import { KnowledgeService } from './knowledge/knowledge.service.js';
import { LiveWeb } from './knowledge/fetch/live-fetch.js';
import { OfflineWeb } from './knowledge/fetch/offline-web.js';
import { HashingEmbedder } from './knowledge/pipeline/embedder.js';
import { warmPipeline } from './knowledge/pipeline/worker-ref.js';
import type { Embedder, IngestFaultHook, Web } from './knowledge/ports.js';
import { ProjectsService } from './projects/projects.service.js';
import { PagesService } from './pages/pages.service.js';
import { TaggingTranslator, type Translator } from './pages/translator.js';
import { ThemeService } from './theme/theme.service.js';
import { AssetsService } from './assets/assets.service.js';
import { BrandService } from './brand/brand.service.js';
import { UsageService } from './usage/usage.service.js';
import { coreCounters } from './usage/counters.js';

/**
 * What the service plugs in: each interface is declared by the part that uses it, and
 * each has a built-in default, filled in by `createService` and nowhere else (decisions, D-148).
 */
export interface ServicePorts {
  /** Turns knowledge chunks into vectors. Default: the built-in deterministic hashing embedder. */
  embedder: Embedder;
  /** Answers chat turns. Default: the deterministic extractive responder (`createResponder()`). */
  chatModel: ChatModel;
  /** Translates page texts when a site adds a language. Default: the deterministic tagging translator. */
  translator: Translator;
  /**
   * Where URL sources are fetched from. Default: an offline web with no pages. With
   * `settings.liveFetch` the network is used instead, whatever this says.
   */
  web: Web;
  /** Asked before each ingestion: a code it answers fails that run. Default: never fails. */
  ingestFaults: IngestFaultHook;
  /**
   * Moves of the clock, so that jobs scheduled on it run when it moves. Default: the
   * clock itself when it is an `EmulatedClock`, else none (the queue looks every second).
   */
  clockMoves: ClockMoves | undefined;
}

export interface ServiceOptions {
  db: Store;
  clock: Clock;
  ids: IdGenerator;
  settings: Settings;
  /** What a new workspace starts with (plan, rate limit, credits, caps). Default: `DEFAULT_WORKSPACE`. */
  workspaceDefaults?: WorkspaceDefaults | undefined;
  /** Implementations of the ports; an unset one is the built-in default. */
  ports?: Partial<ServicePorts> | undefined;
  /** This process among those sharing the store (jobs and requests it holds). Default: a random id. */
  processId?: string | undefined;
}

/** Hooks a part runs after a state import replaced every table (rebuild derived indexes). */
export type AfterImportHook = () => Promise<void>;

/** The ports with every unset one filled with its default (see `ServicePorts`). */
function resolvePorts(ports: Partial<ServicePorts>, settings: Settings, clock: Clock): ServicePorts {
  return {
    embedder: ports.embedder ?? new HashingEmbedder(),
    chatModel: ports.chatModel ?? createResponder(),
    translator: ports.translator ?? new TaggingTranslator(),
    web: settings.liveFetch ? new LiveWeb() : (ports.web ?? new OfflineWeb(undefined)),
    ingestFaults: ports.ingestFaults ?? (() => undefined),
    clockMoves: ports.clockMoves ?? (clock instanceof EmulatedClock ? clock : undefined),
  };
}

/**
 * The one place the store's kind is looked at (D-961): a store other processes share
 * gets the shared side of each port (leases, counters, coherence, claims, activity in
 * the store), one only this process uses keeps them in memory (D-201). Parts receive
 * the ports, never the choice; what they must do differently asks `coherence.shared`.
 */
function storePorts(store: Store, clock: Clock, settings: Settings, processId: string | undefined) {
  const db = store.db;
  const shared = store.shared
    ? new SharedProcess(db, processId ?? `ins_${randomUUID().replaceAll('-', '')}`, { leaseMs: settings.leaseMs, now: () => clock.now(), log: settings.log })
    : undefined;
  return {
    shared,
    coherence: shared ? new SqlCoherence(db) : (new LocalCoherence() as Coherence),
    /** Fixed-window counters named under `namespace`: memory, or the store when shared. */
    windowCounters: (namespace: string): WindowCounters => (shared ? new SqlWindowCounters(db, namespace, settings.log) : new MemoryWindowCounters()),
    idempotency: new IdempotencyStore(db, clock, shared),
    claims: shared && new LeasedClaims(db, shared),
    activity: shared && new SqlActivity(db, clock),
  };
}

/**
 * The one composition root: builds every service once from the store, the clock, the
 * id generator, the settings and the ports, and is the only place parts are wired to
 * each other (dependents, cascades, file sources, change hooks; decisions, D-149).
 * Nothing else constructs a service.
 */
export function createService({ db: store, clock, ids, settings, workspaceDefaults = DEFAULT_WORKSPACE, ports: given = {}, processId }: ServiceOptions) {
  const db = store.db;
  const ports = resolvePorts(given, settings, clock);
  const cursors = new Cursors(settings.secret);
  const { shared, coherence, windowCounters, idempotency, claims, activity } = storePorts(store, clock, settings, processId);
  const rateLimiter = new RateLimiter(windowCounters('rate'));
  // Threads start with the first heavy task, not here: start-up stays as fast as it was.
  const workers = new WorkerPool(settings.workers);
  const jobs = new JobQueue({
    db,
    clock,
    ids,
    concurrency: settings.jobConcurrency,
    log: settings.log,
    clockMoves: ports.clockMoves,
    claims,
    pollMs: shared && Math.min(1000, settings.leaseMs / 3),
    // A job whose transaction lost a deadlock runs again, as one cut off from the store does.
    transient: (error) => store.unavailable(error) || store.conflicted(error),
    sync: () => coherence.sync(),
  });
  const workspaces = new WorkspacesService({ db, clock, ids, defaults: workspaceDefaults, activity, coherence });
  const core: CoreDeps = {
    db,
    clock,
    ids,
    settings,
    cursors,
    jobs,
    assertCapacity: (on, workspaceId, cap, count, adding) => workspaces.assertCapacity(on, workspaceId, cap, count, adding),
  };
  const auth = new AuthService({ db, clock, ids, cursors, workspaces, coherence });
  const agents = new AgentsService(core);
  // The requests being answered: a stop waits for them (D-1163).
  const requests = new InFlight();
  const knowledge = new KnowledgeService({
    ...core,
    stopping: requests.stopping,
    dialect: store.sql,
    workers,
    agents,
    coherence,
    embedder: ports.embedder,
    web: ports.web,
    ingestFaults: ports.ingestFaults,
  });
  const retrieval = new RetrievalService({ agents, knowledge: knowledge.index, lexicons: knowledge.lexicons, log: settings.log });
  const chat = new ChatService({ db, clock, ids, agents, credits: workspaces, retrieval, knowledge: retrieval, model: ports.chatModel });
  const projects = new ProjectsService(core);
  const pages = new PagesService({ ...core, projects, translator: ports.translator });
  const theme = new ThemeService({ ...core, projects });
  const assets = new AssetsService({ ...core, pages, workers });
  const brand = new BrandService({ ...core, projects, files: assets, workers });
  const usage = new UsageService({
    ...core,
    workspaces,
    counters: {
      ...coreCounters(),
      agents: (ws, on) => agents.count(ws, on),
      projects: (ws, on) => projects.count(ws, on),
      pages: (ws, on) => pages.count(ws, on),
      knowledgeDocuments: (ws, on) => knowledge.count(ws, on),
    },
  });

  // What hangs on an agent: pages block its deletion; its sources and conversations go with it.
  agents.addDependent({ cascade: (trx, workspaceId, agentId) => knowledge.deleteAgentSources(trx, workspaceId, agentId) });
  agents.addDependent({
    cascade: async (trx, workspaceId, agentId) => {
      await chat.conversations.deleteForAgent(trx, workspaceId, agentId);
      return {};
    },
  });
  agents.addDependent({ blockers: (trx, workspaceId, agentId) => pages.agentBlockers(trx, workspaceId, agentId) });
  // What hangs on a project: its pages (also listed in llms.txt), theme and brand go with it.
  projects.addDependent({
    cascade: (trx, workspaceId, projectId) => pages.deleteForProject(trx, workspaceId, projectId),
    llmsEntries: (trx, _workspaceId, projectId) => pages.llmsEntries(trx, projectId),
  });
  projects.addDependent({
    cascade: async (trx, workspaceId, projectId) => {
      await theme.deleteForProject(trx, workspaceId, projectId);
      return {};
    },
  });
  projects.addDependent({
    cascade: async (trx, workspaceId, projectId) => {
      await brand.removeProject(trx, workspaceId, projectId);
      return {};
    },
  });
  // `GET /files/{id}` also serves brand files.
  assets.addFileSource((fileId) => brand.getStoredFile(fileId), brand.fileTypes);
  // A workspace changed or went away: cached keys and knowledge versions are stale.
  workspaces.onChange(() => auth.invalidate());
  workspaces.onChange(() => knowledge.workspacesChanged());
  // Another process sharing the store changed keys or workspaces, or replaced the state:
  // then everything derived from the knowledge tables goes too, the term ids with which
  // this process would otherwise store new chunks among them (D-1133).
  coherence.onChange(() => auth.invalidate());
  coherence.onChange(({ replaced }) => (replaced ? knowledge.afterImport() : knowledge.workspacesChanged()));
  // Indexes built from the old state are kept under versions the new one may repeat (D-1138).
  coherence.onChange(({ replaced }) => (replaced ? retrieval.clear() : undefined));

  const endRequests = async (): Promise<void> => {
    requests.stop();
    await jobs.stop();
    await requests.settle();
  };

  const afterImport: AfterImportHook[] = [
    async () => auth.invalidate(),
    async () => workspaces.activity.forget(),
    () => knowledge.afterImport(),
    async () => retrieval.clear(),
  ];

  return {
    store,
    db,
    clock,
    ids,
    settings,
    cursors,
    idempotency,
    rateLimiter,
    workers,
    jobs,
    workspaces,
    auth,
    agents,
    retrieval,
    chat,
    requests,
    knowledge,
    projects,
    pages,
    theme,
    assets,
    brand,
    usage,
    afterImport,
    coherence,
    windowCounters,
    /** This process among those sharing the store; undefined when the store is this process's alone. */
    shared,

    /** Starts background work: forgets unfinished idempotent requests, resumes jobs. */
    async start(): Promise<void> {
      await shared?.start();
      await coherence.start();
      await idempotency.forgetUnfinished();
      await jobs.start();
    },

    /**
     * Starts the worker threads ingestion runs on, in the background, so that the first
     * uploads do not wait for them; a server calls it once it listens (D-1000). With
     * `rehearsals` (Markdown texts, asked for once the threads have loaded their modules,
     * off the ready line's way), the threads then read them as web pages, only while
     * no document waits, so that the first real ones find the pipeline's code compiled
     * (D-1220). Resolves with how many they read.
     */
    warmIngestion(rehearsals: () => readonly string[] = () => []): Promise<number> {
      return warmPipeline(workers, rehearsals);
    },

    /**
     * Ends the requests being answered and background work (`endRequests`), then the
     * worker threads, and writes what memory holds; the store stays open.
     */
    async stop(): Promise<void> {
      await endRequests();
      await workers.close();
      await workspaces.activity.flush();
      await knowledge.flush();
    },

    /**
     * Tells the requests under way that the service stops (a chat turn ends early, D-1163),
     * stops taking jobs (a drain or a clock move waiting for them ends), and resolves once
     * every request has been answered. A server stops taking connections before, and cuts
     * them after.
     */
    endRequests,

    /**
     * Stops background work and writes what memory holds, as `stop` does, but keeps the
     * worker threads: a state import does this, and requests served meanwhile still
     * use them (ending them failed such a request with a 500, D-1136). `start` resumes.
     */
    async pause(): Promise<void> {
      await jobs.stop();
      await workspaces.activity.flush();
      await knowledge.flush();
    },

    /**
     * Leaves the processes sharing the store (after `stop`): the jobs and requests this
     * one held go to the others at once rather than when its lease lapses.
     */
    async leave(): Promise<void> {
      await shared?.stop();
    },

    /** Writes what memory holds (activity counters) so that the store is the whole state. */
    async flush(): Promise<void> {
      await workspaces.activity.flush();
      await knowledge.flush();
    },
  };
}

export type Service = ReturnType<typeof createService>;
