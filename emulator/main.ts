/// <reference types="node" preserve="true" />
// The package's entry (`import … from 'svc-emulator'`): the emulator, a client, and the
// service library underneath it (`src/index.ts`; decisions, D-156).
export * from '../src/index.js';
export { createEmulator, Emulator, SEED_EPOCH } from './emulator.js';
export type { EmulatorOptions, CreatedWorkspace, ListeningServer } from './emulator.js';
export { EmulatorOptionsError } from './options-schema.js';
export { EmulatorClosedError } from './closed.js';
export { FixtureError } from './fixtures.js';
export { createClient, send, type Client, type ApiResponse, type Target } from './client.js';
