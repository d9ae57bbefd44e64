/// <reference types="node" preserve="true" />
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Scope } from '../src/platform/scopes.js';
import { createClient, type Client } from './client.js';
import { createEmulator, type CreatedWorkspace, type Emulator, type EmulatorOptions } from './emulator.js';

/** One test's own workspace and client. */
export interface EmulatorTestWorkspace {
  /** This test's own workspace and key (a new one per test). */
  workspace: CreatedWorkspace;
  /** A client bound to this test's key. */
  api: Client;
}

export interface EmulatorTestContext extends EmulatorTestWorkspace {
  /** The file's emulator (one per test file). */
  emulator: Emulator;
  /** A client without key, for the control plane (`/_emulator`). */
  control: Client;
  /**
   * The workspace and client of the test whose vitest context is `test` (the test
   * function's first argument). Tests that run at once (`it.concurrent`,
   * `describe.concurrent`) must take theirs so: `workspace` and `api` name the running
   * test's, and there are several.
   */
  of(test: { task: object }): EmulatorTestWorkspace;
}

const CONCURRENT =
  "setupEmulator: tests of this file run at once (it.concurrent or describe.concurrent), so there is no one current test: take the test's own workspace and client with ctx.of(test), test being the test function's first argument";

/**
 * For vitest: one emulator per test file, one isolated workspace per test. Call at the
 * top of a test file; read the returned object's fields inside tests. Tests that run
 * at once take their own with `ctx.of(test)`; `ctx.workspace` and `ctx.api` then throw
 * rather than answer another test's (D-1110).
 */
export function setupEmulator(options: EmulatorOptions & { scopes?: Scope[] | undefined } = {}): EmulatorTestContext {
  const { scopes, ...emulatorOptions } = options;
  const own = new WeakMap<object, EmulatorTestWorkspace>();
  let current: EmulatorTestWorkspace | undefined;
  let running = 0;
  // Set once two tests overlap, until none runs: meanwhile no test is the current one.
  let overlapped = false;
  const currentTest = (): EmulatorTestWorkspace => {
    if (overlapped) throw new Error(CONCURRENT);
    if (!current) throw new Error('setupEmulator: a workspace exists only inside a test (and its beforeEach and afterEach hooks)');
    return current;
  };
  const ctx = {
    of(test: { task: object }): EmulatorTestWorkspace {
      const mine = own.get(test.task);
      if (!mine) throw new Error('setupEmulator: ctx.of(test) takes the context of a test of the file that called setupEmulator');
      return mine;
    },
    get workspace() {
      return currentTest().workspace;
    },
    get api() {
      return currentTest().api;
    },
  } as EmulatorTestContext;
  beforeAll(async () => {
    ctx.emulator = await createEmulator(emulatorOptions);
    ctx.control = createClient(ctx.emulator);
  });
  afterAll(async () => {
    await ctx.emulator?.close();
  });
  beforeEach(async (test) => {
    const workspace = await ctx.emulator.createWorkspace({ scopes });
    const mine = { workspace, api: createClient(ctx.emulator, workspace.apiKey.secret) };
    own.set(test.task, mine);
    current = mine;
    running += 1;
    if (running > 1) overlapped = true;
    // Runs after the test and its afterEach hooks; `current` stays the last test's, as before.
    return () => {
      running -= 1;
      if (running === 0) overlapped = false;
      own.delete(test.task);
    };
  });
  return ctx;
}
