/**
 * Plan data: the countable items a plan caps, and what a new workspace starts with.
 * The workspaces part stores and enforces them; usage reports them. Data only, so that
 * the parts that count (agents, knowledge, projects, pages) can name a cap without
 * knowing the workspaces part.
 */

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
  /** Default `free`. */
  plan: string;
  /** Default 600 requests per 60 seconds per key. */
  rateLimit: { limit: number; windowSeconds: number };
  /** Default `null`: no daily cap. */
  dailyActivityCap: number | null;
  /** Message credits; default 1,000. */
  credits: number;
  /** Default: no cap on anything. */
  caps: Caps;
}

export const DEFAULT_WORKSPACE: WorkspaceDefaults = {
  plan: 'free',
  rateLimit: { limit: 600, windowSeconds: 60 },
  dailyActivityCap: null,
  credits: 1000,
  caps: { projects: null, agents: null, pages: null, knowledgeDocuments: null, customDomains: null, seats: null },
};
