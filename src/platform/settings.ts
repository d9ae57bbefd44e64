import { DEFAULT_WORKER_POOL, type WorkerPoolOptions } from './worker-pool.js';

/**
 * Service-wide settings: scalars only (what the service plugs in is passed to
 * `createService` as ports, plan data lives in `plans/`). Only the CLI reads the
 * environment; everything else gets these.
 */
export interface Settings {
  /** `{site_domain}`: public sites answer on `<slug>.<siteDomain>`. */
  siteDomain: string;
  /** `{docs_url}`; when unset, `http://<request host>/docs`. */
  docsUrl: string | undefined;
  /** Fetch URL sources from the network instead of the offline web. */
  liveFetch: boolean;
  /** Secret that signs cursors and asset URLs. */
  secret: string;
  jobConcurrency: number;
  fetchTimeoutMs: number;
  /** The worker threads that extract documents, check uploads and render pages, and their limits. */
  workers: WorkerPoolOptions;
  /** Where unexpected errors are reported (never to the client). */
  log: (message: string, error?: unknown) => void;
}

/** Fills every unset setting with its default. */
export function resolveSettings(partial: Partial<Settings> & { secret: string }): Settings {
  return {
    siteDomain: 'localhost',
    docsUrl: undefined,
    liveFetch: false,
    jobConcurrency: 2,
    fetchTimeoutMs: 10_000,
    workers: DEFAULT_WORKER_POOL,
    log: (message, error) => console.error(message, error),
    ...partial,
  };
}
