/// <reference types="node" preserve="true" />
export { createEmulator, Emulator, SEED_EPOCH } from './emulator.js';
export type { EmulatorOptions, CreatedWorkspace, ListeningServer } from './emulator.js';
export { EmulatorOptionsError } from './options-schema.js';
export { EmulatorClosedError } from './closed.js';
export type { Fixture, FixtureInput } from './fixtures.js';
export { FixtureError } from './fixtures.js';
export type { StateDocument } from './state.js';
export type { JournalEntry } from './journal.js';
export { createClient, send, type Client, type ApiResponse, type Target } from './client.js';
export type { paths, components, operations } from './api-types.js';
export type { TypedCalls, TypedAnswer, AnswerFor, PathsWith, OperationOf, RequestInitFor, ParseAs, HttpMethod } from './typed-client.js';
