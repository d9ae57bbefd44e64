import type { Generated } from 'kysely';

/**
 * Bookkeeping of the processes that share one store (a PostgreSQL server): who is alive,
 * which jobs they hold, counters they agree on, and what the emulator shares (faults,
 * journal). Not state: these tables are not in `TABLES`, so they are neither exported
 * nor imported. On SQLite and PGlite they exist and stay empty (decisions, D-201).
 */
export interface InstanceTable {
  id: string;
  started_at: string;
  /** Epoch milliseconds on the database server's clock until which the process counts as alive. */
  lease_until: number;
  /** 1 while the process waits for running jobs to end before a state import; nobody claims jobs then. */
  pausing: number;
}

export interface JobLeaseTable {
  job_id: string;
  /** The process running the job; when it is no longer alive, another takes the job. */
  instance_id: string;
}

/** One fixed window of a counter (rate limits, visitors' turns). */
export interface WindowCounterTable {
  name: string;
  window_start: string;
  count: number;
  /** When the window ends (emulated time): rows past it are swept. */
  expires_at: string;
}

/** One row: bumped by every write that caches of other processes must see. */
export interface CoherenceTable {
  id: number;
  version: number;
}

/** Faults injected through the control plane: `request` faults and queued `ingest` failures. */
export interface FaultTable {
  id: string;
  kind: string;
  method: string | null;
  path: string | null;
  status: number | null;
  code: string;
  /** null: until removed. */
  remaining: number | null;
  created_at: string;
}

/** The request journal of every process (the newest `capacity` rows are kept). */
export interface JournalTable {
  seq: Generated<number>;
  at: string;
  method: string;
  path: string;
  status: number;
  code: string | null;
  key_prefix: string | null;
  workspace_id: string | null;
  request_id: string;
}

export interface SharedTables {
  instances: InstanceTable;
  job_leases: JobLeaseTable;
  window_counters: WindowCounterTable;
  coherence: CoherenceTable;
  faults: FaultTable;
  journal: JournalTable;
}
