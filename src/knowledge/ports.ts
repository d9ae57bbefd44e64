import type { Db } from '../db/schema/index.js';
import type { IngestFailureCode } from '../platform/ingest-failures.js';

/*
 * What the knowledge part needs from outside, declared here by the part that uses it
 * (as kysely's dialect config declares only the part of a driver it calls). The
 * composition root (`createService`) passes implementations; the defaults are filled
 * in there.
 */

/** Turns texts into vectors. The default is deterministic; a user may plug a real model. */
export interface Embedder {
  /** Stored with each chunk: a change of embedder means re-embedding. */
  readonly id: string;
  readonly dimensions: number;
  /** One L2-normalised vector per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
}

export interface HopResponse {
  status: number;
  /** Lowercase names. */
  headers: Record<string, string>;
  body: Uint8Array;
  /** Time this hop took (the offline web's `delayMs`, or real time for live fetches). */
  elapsedMs: number;
}

/** Where pages come from: the offline web, or the network. */
export interface Web {
  /** The addresses of a name; empty when the name does not resolve. */
  resolve(name: string): Promise<string[]>;
  /**
   * One GET of `url` connected to `address` (already judged), within `budgetMs`. Throws
   * `IngestError` with `fetch_timeout` or `fetch_response_too_large`.
   */
  get(url: URL, address: string, budgetMs: number, maxBytes: number): Promise<HopResponse>;
}

/** What knowledge needs of agents: that one exists (else `404 svc.agent.not_found`). */
export interface AgentLookup {
  getAgentOrThrow(workspaceId: string, agentId: string, db?: Db): Promise<unknown>;
}

/**
 * Asked before each ingestion and re-crawl: a failure code it answers fails that run
 * with it, as if the pipeline had (the emulator's `ingest` faults).
 */
export type IngestFaultHook = () => IngestFailureCode | undefined | Promise<IngestFailureCode | undefined>;
