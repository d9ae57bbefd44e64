import type { Store } from './db/database.js';
import type { Clock } from './platform/clock.js';
import type { IdGenerator } from './platform/ids.js';
import type { Settings } from './platform/settings.js';
import { Cursors } from './platform/pagination.js';
import { IdempotencyStore } from './platform/idempotency.js';
import { RateLimiter } from './platform/rate-limit.js';
import { WorkerPool } from './platform/worker-pool.js';
import { JobQueue } from './jobs/queue.js';
import { WorkspacesService } from './workspaces/workspaces.service.js';
import { AuthService } from './auth/auth.service.js';
import { AgentsService } from './agents/agents.service.js';
import { createChatServices } from './chat/chat.service.js';
import type { CoreDeps } from './core.js';
import { KnowledgeService } from './knowledge/knowledge.service.js';
import { ProjectsService } from './projects/projects.service.js';
import { PagesService } from './pages/pages.service.js';
import { ThemeService } from './theme/theme.service.js';
import { AssetsService } from './assets/assets.service.js';
import { BrandService } from './brand/brand.service.js';
import { UsageService } from './usage/usage.service.js';
import { coreCounters } from './usage/counters.js';

export interface ServiceOptions {
  db: Store;
  clock: Clock;
  ids: IdGenerator;
  settings: Settings;
}

/** Hooks a part runs after a state import replaced every table (rebuild derived indexes). */
export type AfterImportHook = () => Promise<void>;

/**
 * The one composition root: builds every service once from the store, the clock, the
 * id generator and the settings. Nothing else constructs a service.
 */
export function createService({ db: store, clock, ids, settings }: ServiceOptions) {
  const db = store.db;
  const cursors = new Cursors(settings.secret);
  const idempotency = new IdempotencyStore(db, clock);
  const rateLimiter = new RateLimiter();
  // Threads start with the first heavy task, not here: start-up stays as fast as it was.
  const workers = new WorkerPool(settings.workers);
  const jobs = new JobQueue({ db, clock, ids, concurrency: settings.jobConcurrency, log: settings.log });
  const workspaces = new WorkspacesService({ db, clock, ids, settings });
  const auth = new AuthService({ db, clock, ids, cursors, workspaces });
  const agents = new AgentsService({ db, clock, ids, cursors, workspaces });
  const core: CoreDeps = { db, dialect: store.sql, clock, ids, settings, cursors, jobs, workspaces };
  const knowledge = new KnowledgeService({ ...core, agents, workers });
  const { retrieval, chat } = createChatServices({ db, clock, ids, agents, workspaces, knowledge: knowledge.index, model: settings.chatModel });
  const projects = new ProjectsService(core);
  const pages = new PagesService({ ...core, projects, agents, translator: settings.translator });
  const theme = new ThemeService({ ...core, projects });
  const assets = new AssetsService({ ...core, pages, workers });
  const brand = new BrandService({ ...core, projects, files: assets, workers });
  assets.addFileSource((fileId) => brand.getStoredFile(fileId));
  projects.addDependent({ cascade: async (trx, workspaceId, projectId) => (await brand.removeProject(trx, workspaceId, projectId), {}) });
  const usage = new UsageService({
    ...core,
    counters: {
      ...coreCounters(db),
      projects: (ws, on) => projects.count(ws, on),
      pages: (ws, on) => pages.count(ws, on),
      knowledgeDocuments: (ws, on) => knowledge.count(ws, on),
    },
  });
  const afterImport: AfterImportHook[] = [async () => auth.invalidate(), async () => workspaces.activity.forget(), () => knowledge.afterImport()];

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
    knowledge,
    projects,
    pages,
    theme,
    assets,
    brand,
    usage,
    afterImport,

    /** Starts background work: forgets unfinished idempotent requests, resumes jobs. */
    async start(): Promise<void> {
      await idempotency.forgetUnfinished();
      await jobs.start();
    },

    /** Stops background work, ends the worker threads and writes what memory holds; the store stays open. */
    async stop(): Promise<void> {
      await jobs.stop();
      await workers.close();
      await workspaces.activity.flush();
    },

    /** Writes what memory holds (activity counters) so that the store is the whole state. */
    async flush(): Promise<void> {
      await workspaces.activity.flush();
    },
  };
}

export type Service = ReturnType<typeof createService>;
