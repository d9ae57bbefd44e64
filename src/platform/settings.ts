import { DEFAULT_WORKER_POOL, type WorkerPoolOptions } from './worker-pool.js';

/**
 * Service-wide settings: scalars only (what the service plugs in is passed to
 * `createService` as ports, plan data lives in `plans/`). Only the CLI reads the
 * environment; everything else gets these. Each field says its default; the defaults
 * are applied in one place, `resolveSettings`.
 */
export interface Settings {
  /** `{site_domain}`: public sites answer on `<slug>.<siteDomain>`. Default `localhost`. */
  siteDomain: string;
  /**
   * `{docs_url}`, where problem `type` links point. Default unset: `/docs` under the
   * address the emulator listens on (`http://127.0.0.1:4010/docs`), `http://localhost/docs`
   * in process; never the request's `Host` (D-870).
   */
  docsUrl: string | undefined;
  /** Fetch URL sources from the network instead of the offline web. Default `false`. */
  liveFetch: boolean;
  /** Secret that signs cursors and asset URLs. No default: the caller gives one. */
  secret: string;
  /** Background jobs (ingestion, re-crawls, translation) run at once at most. Default 2. */
  jobConcurrency: number;
  /** Time a URL source's fetch may take, all redirect hops together. Default 10,000 ms. */
  fetchTimeoutMs: number;
  /** The worker threads that extract documents, check uploads and render pages, and their limits. Default `DEFAULT_WORKER_POOL`. */
  workers: WorkerPoolOptions;
  /**
   * With a store several processes share: how long a process that stops renewing its
   * lease (killed, or cut off from the database) keeps the jobs and idempotent requests
   * it started before another process takes them over. Renewed every third of it.
   * Default 15,000 ms.
   */
  leaseMs: number;
  /**
   * How long a query, a chat turn or a lexicon read waits for the workspace's bilingual
   * lexicon being learned once its last source settled (D-1142), so that it answers as it
   * will afterwards; past it, it goes on with the lexicon learned before. 0: never waits.
   * Default 10,000 ms.
   */
  lexiconWaitMs: number;
  /** Where unexpected errors are reported (never to the client). Default `console.error`. */
  log: (message: string, error?: unknown) => void;
}

/** What `resolveSettings` takes: any setting (unset or `undefined` keeps its default), the secret, and part of the worker options. */
export type SettingsInput = Partial<Omit<Settings, 'workers'>> & { secret: string; workers?: Partial<WorkerPoolOptions> | undefined };

/** The default of every setting but the secret (documented on `Settings`). */
export const DEFAULT_SETTINGS: Omit<Settings, 'secret'> = {
  siteDomain: 'localhost',
  docsUrl: undefined,
  liveFetch: false,
  jobConcurrency: 2,
  fetchTimeoutMs: 10_000,
  workers: DEFAULT_WORKER_POOL,
  leaseMs: 15_000,
  lexiconWaitMs: 10_000,
  log: (message, error) => console.error(message, error),
};

/** Fills every unset setting with its default; worker options are merged field by field (decisions, D-153). */
export function resolveSettings(input: SettingsInput): Settings {
  const given = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as SettingsInput;
  return { ...DEFAULT_SETTINGS, ...given, workers: { ...DEFAULT_SETTINGS.workers, ...given.workers } };
}
