import type { ChatModel } from '../src/chat/chat-model.js';
import type { DatabaseOptions } from '../src/db/database.js';
import type { Embedder } from '../src/knowledge/ports.js';
import type { Translator } from '../src/pages/translator.js';
import type { Settings } from '../src/platform/settings.js';
import type { WorkerPoolOptions } from '../src/platform/worker-pool.js';
import type { FixtureInput } from './fixtures.js';
import type { SiteChatLimits } from './sites/site-chat-limits.js';

export interface EmulatorOptions {
  /** A SQLite file path, or store options; default an in-memory SQLite database. */
  db?: string | DatabaseOptions;
  /** Deterministic ids, key secrets and a frozen clock starting at 2026-01-01. */
  seed?: string | number;
  /** `demo` (the bundled workspace), `none` (default), a file path or a fixture object. */
  fixtures?: 'demo' | 'none' | string | FixtureInput;
  /** When set, `/_emulator` and the console routes require `Authorization: Bearer <token>` (not `GET /_emulator/health`). */
  adminToken?: string;
  /**
   * Hosts besides `localhost`, `*.localhost` and IP addresses that `/_emulator` and the
   * console routes answer on: names, `.example.test` for that name and every name under
   * it, or `'all'` to switch the Host check off (the browser-origin check stays).
   */
  allowedHosts?: 'all' | readonly string[];
  liveFetch?: boolean;
  /** Turns knowledge chunks into vectors (a real model); default the built-in deterministic embedder. */
  embedder?: Embedder;
  /** Translates page texts when a site adds a language; default a deterministic offline one. */
  translator?: Translator;
  /** Answers chat turns (a real model, e.g. `openAiChatModel`); default the deterministic responder. */
  chatModel?: ChatModel;
  siteDomain?: string;
  docsUrl?: string;
  jobConcurrency?: number;
  /**
   * What anonymous visitors of the hosted pages' chat may do; default 10 turns per 60 s
   * per visitor and workspace, and 10% of a workspace's credits (at least 1) kept for
   * its owner.
   */
  siteChat?: Partial<SiteChatLimits>;
  /**
   * The worker threads for heavy work and their limits (threads, idle timeout, time
   * per task, heap and buffer megabytes); unset fields keep their defaults.
   */
  workers?: Partial<WorkerPoolOptions>;
  /** Where unexpected errors are reported; default `console.error`. */
  log?: Settings['log'];
}
