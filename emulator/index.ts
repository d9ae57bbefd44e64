export { createEmulator, Emulator, SEED_EPOCH } from './emulator.js';
export type { EmulatorOptions, CreatedWorkspace, ListeningServer } from './emulator.js';
export type { Fixture, FixtureInput } from './fixtures.js';
export { FixtureError } from './fixtures.js';
export type { StateDocument } from './state.js';
export type { JournalEntry } from './journal.js';
export { createClient, send, type Client, type ApiResponse, type Target } from './client.js';
