/**
 * Core tables. Conventions for every table of the store: ids and timestamps are text
 * (RFC 3339 UTC with milliseconds, so text order is time order), booleans are integers
 * 0/1 and structured values are JSON text, so the same rows read back identically on
 * SQLite and Postgres.
 */
export interface MetaTable {
  key: string;
  value: string;
}

export interface WorkspaceTable {
  id: string;
  name: string;
  plan: string;
  rate_limit: number;
  rate_window_seconds: number;
  daily_activity_cap: number | null;
  credits: number;
  messages_used: number;
  /** JSON `{ projects, agents, pages, knowledgeDocuments, customDomains, seats }`, null = no cap. */
  caps: string;
  created_at: string;
  updated_at: string;
}

export interface ApiKeyTable {
  id: string;
  workspace_id: string;
  name: string;
  prefix: string;
  env: string;
  hash: string;
  /** JSON array of scope names. */
  scopes: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface IdempotencyTable {
  workspace_id: string;
  key_id: string;
  idem_key: string;
  fingerprint: string;
  /** `running` while the first request is in flight, then `done`. */
  state: string;
  status: number | null;
  /** JSON object of the response headers worth replaying. */
  headers: string | null;
  body: string | null;
  created_at: string;
}

export interface ActivityTable {
  workspace_id: string;
  day: string;
  count: number;
}

export interface JobTable {
  id: string;
  workspace_id: string;
  kind: string;
  /** JSON payload given to the job handler. */
  payload: string;
  /** `queued`, `running`, `done` or `failed`. */
  status: string;
  run_at: string;
  attempts: number;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface AgentTable {
  id: string;
  workspace_id: string;
  name: string;
  business_name: string;
  description: string;
  created_at: string;
  updated_at: string;
}

export interface CoreTables {
  meta: MetaTable;
  workspaces: WorkspaceTable;
  api_keys: ApiKeyTable;
  idempotency: IdempotencyTable;
  activity: ActivityTable;
  jobs: JobTable;
  agents: AgentTable;
}
