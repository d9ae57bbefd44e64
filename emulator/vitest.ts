import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Scope } from '../src/platform/scopes.js';
import { createClient, type Client } from './client.js';
import { createEmulator, type CreatedWorkspace, type Emulator, type EmulatorOptions } from './emulator.js';

export interface EmulatorTestContext {
  /** The file's emulator (one per test file). */
  emulator: Emulator;
  /** This test's own workspace and key (a new one per test). */
  workspace: CreatedWorkspace;
  /** A client bound to this test's key. */
  api: Client;
  /** A client without key, for the control plane (`/_emulator`). */
  control: Client;
}

/**
 * For vitest: one emulator per test file, one isolated workspace per test. Call at the
 * top of a test file; read the returned object's fields inside tests.
 */
export function setupEmulator(options: EmulatorOptions & { scopes?: Scope[] } = {}): EmulatorTestContext {
  const { scopes, ...emulatorOptions } = options;
  const ctx = {} as EmulatorTestContext;
  beforeAll(async () => {
    ctx.emulator = await createEmulator(emulatorOptions);
    ctx.control = createClient(ctx.emulator);
  });
  afterAll(async () => {
    await ctx.emulator?.close();
  });
  beforeEach(async () => {
    ctx.workspace = await ctx.emulator.createWorkspace({ scopes });
    ctx.api = createClient(ctx.emulator, ctx.workspace.apiKey.secret);
  });
  return ctx;
}
