import { afterAll } from 'vitest';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../emulator/emulator.js';
import type { Scope } from '../../src/platform/scopes.js';
import { client } from './client.js';

/** Errors are expected in tests; keep them out of the output unless asked. */
export const quiet = (message?: unknown, error?: unknown): void => {
  if (process.env.DEBUG_LOG) console.error(message, error);
};

/** One emulator for the test file, closed after it. */
export async function fileEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const emulator = await createEmulator({ log: quiet, ...options });
  afterAll(() => emulator.close());
  return emulator;
}

/** A new workspace with a key; `api` is a client bound to that key. */
export async function workspace(emulator: Emulator, options: { scopes?: Scope[]; credits?: number } = {}) {
  const ws = await emulator.createWorkspace(options);
  return { ...ws, key: ws.apiKey.secret, api: client(emulator, ws.apiKey.secret), control: client(emulator) };
}
