import type { Embedder } from '../knowledge/knowledge-index.js';
import type { ChatModel } from '../chat/chat-model.js';
import type { Translator } from '../pages/translator.js';
import { DEFAULT_WORKER_POOL, type WorkerPoolOptions } from './worker-pool.js';

/** Plan caps per countable item; `null` means no cap. */
export interface Caps {
  projects: number | null;
  agents: number | null;
  pages: number | null;
  knowledgeDocuments: number | null;
  customDomains: number | null;
  seats: number | null;
}

export const CAP_NAMES = ['projects', 'agents', 'pages', 'knowledgeDocuments', 'customDomains', 'seats'] as const;
export type CapName = (typeof CAP_NAMES)[number];

/** Settings a new workspace starts with (CONTRACT control plane defaults). */
export interface WorkspaceDefaults {
  plan: string;
  rateLimit: { limit: number; windowSeconds: number };
  dailyActivityCap: number | null;
  credits: number;
  caps: Caps;
}

/**
 * What anonymous visitors of the hosted pages' chat may do (decisions, Site chat): how
 * many turns one visitor may open per window on one workspace's sites, and the share of
 * a workspace's credits kept for its owner, which visitors' turns never spend.
 */
export interface SiteChatLimits {
  visitorTurns: number;
  visitorWindowSeconds: number;
  /** Of the workspace's credits (0 to 1), rounded up. */
  ownerReserveShare: number;
  /** At least this many credits are kept (never more than the workspace has). */
  ownerReserveMin: number;
  /**
   * Behind a reverse proxy you trust: the visitor is the last address of
   * `X-Forwarded-For` (the one that proxy added). Off by default: anyone can send it.
   */
  trustForwardedFor: boolean;
}

export const DEFAULT_SITE_CHAT: SiteChatLimits = {
  visitorTurns: 10,
  visitorWindowSeconds: 60,
  ownerReserveShare: 0.1,
  ownerReserveMin: 1,
  trustForwardedFor: false,
};

/** Service-wide settings. Only the CLI reads the environment; everything else gets these. */
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
  /** Turns knowledge chunks into vectors; unset means the built-in deterministic one. */
  embedder?: Embedder | undefined;
  /** Translates page texts when a site adds a language; unset means the built-in deterministic one. */
  translator?: Translator | undefined;
  /** Answers chat turns; unset means the built-in deterministic extractive responder. */
  chatModel?: ChatModel | undefined;
  workspaceDefaults: WorkspaceDefaults;
  siteChat: SiteChatLimits;
  /** Where unexpected errors are reported (never to the client). */
  log: (message: string, error?: unknown) => void;
}

export const DEFAULT_WORKSPACE: WorkspaceDefaults = {
  plan: 'free',
  rateLimit: { limit: 600, windowSeconds: 60 },
  dailyActivityCap: null,
  credits: 1000,
  caps: { projects: null, agents: null, pages: null, knowledgeDocuments: null, customDomains: null, seats: null },
};

/** Fills every unset setting with its default. */
export function resolveSettings(partial: Partial<Settings> & { secret: string }): Settings {
  return {
    siteDomain: 'localhost',
    docsUrl: undefined,
    liveFetch: false,
    jobConcurrency: 2,
    fetchTimeoutMs: 10_000,
    workers: DEFAULT_WORKER_POOL,
    workspaceDefaults: DEFAULT_WORKSPACE,
    siteChat: DEFAULT_SITE_CHAT,
    log: (message, error) => console.error(message, error),
    ...partial,
  };
}
