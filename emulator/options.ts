import type { DatabaseOptions } from '../src/db/database.js';
import type { Settings } from '../src/platform/settings.js';
import type { WorkerPoolOptions } from '../src/platform/worker-pool.js';
import type { ServicePorts } from '../src/service.js';
import type { FixtureInput } from './fixtures.js';
import type { SiteChatLimits } from './sites/site-chat-limits.js';

/**
 * Every field optional, `undefined` included: a caller that passes `process.env.X` as it
 * is compiles under `exactOptionalPropertyTypes`, as the options check takes it (D-1155).
 */
type Optional<T> = { [K in keyof T]?: T[K] | undefined };

/** The settings an emulator's caller may set; their defaults are documented on `Settings`. */
export type EmulatorSettings = Optional<Pick<Settings, 'siteDomain' | 'docsUrl' | 'liveFetch' | 'jobConcurrency' | 'leaseMs' | 'lexiconWaitMs' | 'log'>>;

/**
 * What an emulator's caller may plug in (a real model, a translation service); the
 * defaults are documented on `ServicePorts`. The emulator provides the offline web and
 * the fault hook itself.
 */
export type EmulatorPorts = Optional<Pick<ServicePorts, 'embedder' | 'translator' | 'chatModel'>>;

export interface EmulatorOptions extends EmulatorSettings, EmulatorPorts {
  /**
   * A SQLite file path, a PostgreSQL server's URL (`postgres://user:password@host:port/db`,
   * which several emulator processes may share as one sandbox), or store options;
   * default an in-memory SQLite database.
   */
  db?: string | DatabaseOptions | undefined;
  /** Deterministic ids, key secrets and a frozen clock starting at 2026-01-01. Default unset: random, real time. */
  seed?: string | number | undefined;
  /**
   * `demo` (the bundled workspace), `none` (default), a file path or a fixture object. The
   * built package starts `demo` in a new SQLite store from the state `npm run build`
   * prebuilt, with the answers a load gives (decisions, D-185).
   */
  fixtures?: 'demo' | 'none' | string | FixtureInput | undefined;
  /**
   * A state document to start from instead of fixtures (`GET /_emulator/state`, or a file
   * `--export-on-exit` wrote, whose key hashes are in the clear); `reset` returns to it.
   * It replaces the state of an existing `db` file. Default unset.
   */
  state?: unknown;
  /** When set, `/_emulator` and the console routes require `Authorization: Bearer <token>` (not `GET /_emulator/health`). Default unset. */
  adminToken?: string | undefined;
  /**
   * Hosts besides `localhost`, `*.localhost` and IP addresses that `/_emulator` and the
   * console routes answer on: names, `.example.test` for that name and every name under
   * it, or `'all'` to switch the Host check off (the browser-origin check stays).
   * Default none.
   */
  allowedHosts?: 'all' | readonly string[] | undefined;
  /**
   * What anonymous visitors of the hosted pages' chat may do; unset fields keep their
   * defaults (documented on `SiteChatLimits`: 10 turns per 60 s per visitor and
   * workspace, and 10% of a workspace's credits, at least 1, kept for its owner).
   */
  siteChat?: Partial<SiteChatLimits> | undefined;
  /**
   * The worker threads for heavy work and their limits (threads, idle timeout, time
   * per task, heap and buffer megabytes); unset fields keep their defaults (documented
   * on `WorkerPoolOptions`).
   */
  workers?: Partial<WorkerPoolOptions> | undefined;
}
