// The service as a library: build it (`createService`, `createApp`, `openStore`) and
// plug in what it uses (the ports). The package's own entry, `emulator/main.ts`,
// re-exports all of this with the emulator on top.
export { createService, type Service, type ServiceOptions, type ServicePorts } from './service.js';
export { createApp, type AppOptions } from './app.js';
export { openStore, type Store, type DatabaseOptions } from './db/database.js';
export { EmulatedClock, type Clock } from './platform/clock.js';
export { createIdGenerator, type IdGenerator } from './platform/ids.js';
export { resolveSettings, type Settings } from './platform/settings.js';
export { ServiceError } from './platform/service-error.js';
export { ERROR_CODES, type ErrorCode } from './platform/error-codes.js';
export { SCOPES, type Scope } from './platform/scopes.js';
export type { KnowledgeIndex, IndexedChunk } from './knowledge/knowledge-index.js';
export type { Embedder, Web } from './knowledge/ports.js';
export type { ChatModel, ChatTurnInput, ChatReply, ChatHistoryTurn } from './chat/chat-model.js';
export { openAiChatModel, type OpenAiChatModelOptions } from './chat/openai-adapter.js';
export { openAiEmbedder, EmbeddingError, type OpenAiEmbedderOptions } from './knowledge/openai-embedder.js';
export { createResponder } from './chat/responder.js';
export type { Translator } from './pages/translator.js';
export { DEFAULT_WORKSPACE, type WorkspaceDefaults, type Caps, type CapName } from './plans/plans.js';
export type { Language } from './text/language.js';
