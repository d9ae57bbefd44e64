import { setImmediate as nextTask } from 'node:timers/promises';
import * as v from 'valibot';
import { WebDefinitionSchema, WebSummarySchema, type WebDefinition } from '../src/knowledge/fetch/offline-web.js';
import { idParam } from '../src/platform/openapi.js';
import type { Router } from '../src/platform/route.js';
import type { Scope } from '../src/platform/scopes.js';
import { parseIso } from '../src/platform/time.js';
import {
  WorkspaceCreateSchema,
  WorkspaceRecordSchema,
  WorkspaceSettingsPatchSchema,
  type WorkspaceSettingsPatch,
} from '../src/workspaces/workspaces.schema.js';
import type { WorkspaceRecord } from '../src/workspaces/workspaces.service.js';
import { FaultSchema, type Fault, type FaultEntry, type FaultRequest, type IngestFaultQueued } from './faults.js';
import type { JournalEntry } from './journal.js';
import { packageVersion } from './package-info.js';
import { StateDocumentSchema, type StateDocument } from './state.js';

import {
  ClockMoveSchema,
  ClockSchema,
  MemorySchema,
  RequestsQuerySchema,
  CreatedWorkspaceSchema,
  HealthSchema,
  WorkspaceDeletedSchema,
  ResetSchema,
  ImportedSchema,
  DrainedSchema,
  FaultRecordSchema,
  IngestFaultsSchema,
  FaultListSchema,
  FaultsClearedSchema,
  FaultRemovedSchema,
  RequestListSchema,
  LexiconSchema,
  type LexiconView,
} from './control-plane.schema.js';

/** A workspace made by the control plane, with its one key (the secret is shown once). */
export interface CreatedWorkspace {
  workspaceId: string;
  apiKey: { id: string; prefix: string; scopes: Scope[]; secret: string };
}

/** What the emulated clock looks like from outside. */
export interface ClockView {
  now: string;
  frozen: boolean;
}

/**
 * What the control plane needs of the emulator, declared here so that the routes do
 * not know the emulator (which registers them). A new control-plane route adds the
 * method it needs here and implements it in `Emulator`.
 */
export interface EmulatorControl {
  createWorkspace(input?: {
    name?: string | undefined;
    scopes?: Scope[] | undefined;
    plan?: string | undefined;
    credits?: number | undefined;
  }): Promise<CreatedWorkspace>;
  getWorkspace(workspaceId: string): Promise<WorkspaceRecord>;
  updateWorkspace(workspaceId: string, patch: WorkspaceSettingsPatch): Promise<WorkspaceRecord>;
  deleteWorkspace(workspaceId: string): Promise<void>;
  /** What the workspace's lexicon learned from its own translations (D-795). */
  getLexicon(workspaceId: string): Promise<LexiconView>;
  reset(): Promise<void>;
  exportState(): Promise<StateDocument>;
  importState(doc: unknown): Promise<void>;
  readonly clock: {
    now(): number;
    get(): ClockView;
    /** Moves time forward; what came due has run when it resolves. */
    advance(ms: number): Promise<ClockView>;
    set(instant: number | string): Promise<ClockView>;
  };
  /** Resolves once every queued job has finished; answers how many ran. */
  drain(): Promise<number>;
  setWeb(definition: unknown): Promise<{ pages: number; hosts: number }>;
  getWeb(): Promise<WebDefinition>;
  injectFault(input: FaultRequest): Promise<Fault | IngestFaultQueued>;
  /** Request faults, then queued ingestion failures not spent yet (D-1093). */
  listFaults(): Promise<FaultEntry[]>;
  clearFaults(): Promise<number>;
  /** Removes one entry of `listFaults` by id; `404 svc.resource.not_found` when it has none (D-1196). */
  removeFault(faultId: string): Promise<FaultEntry>;
  requests(limit?: number): Promise<JournalEntry[]>;
}

const workspaceId = { workspaceId: idParam('workspace', 'ws') };

/** The emulator's control plane under `/_emulator` (CONTRACT, control plane). */
export function registerControlPlane(router: Router, emulator: EmulatorControl): void {
  const tags = ['Emulator'];
  const security = 'admin' as const;

  router.add(
    {
      method: 'GET',
      path: '/_emulator/health',
      operationId: 'getHealth',
      tags,
      security: 'none',
      summary: "Liveness and version: open without the admin token and from any Host (readiness probes), refused only to another origin's web page",
      responses: { 200: { description: 'ok', schema: HealthSchema } },
      errors: ['svc.auth.forbidden'],
    },
    () => ({ status: 200, body: { status: 'ok' as const, version: packageVersion() } }),
  );

  router.add(
    {
      method: 'GET',
      path: '/_emulator/memory',
      operationId: 'getMemory',
      tags,
      security,
      summary: 'Memory of the emulator process in bytes; after a full garbage collection when node runs with --expose-gc (then `collected` is true)',
      responses: { 200: { description: 'process.memoryUsage()', schema: MemorySchema } },
    },
    async () => {
      const gc = (globalThis as { gc?: () => void }).gc;
      if (gc) await collectFully(gc);
      const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
      return { status: 200, body: { rss, heapTotal, heapUsed, external, arrayBuffers, collected: gc !== undefined } };
    },
  );

  router.add(
    {
      method: 'POST',
      path: '/_emulator/workspaces',
      operationId: 'createWorkspace',
      tags,
      security,
      summary: 'Create an isolated workspace with one key',
      body: WorkspaceCreateSchema,
      responses: { 201: { description: 'The workspace id and its key (secret shown once)', schema: CreatedWorkspaceSchema } },
      errors: ['svc.request.validation_failed'],
    },
    async ({ body }) => ({ status: 201, body: await emulator.createWorkspace(body) }),
  );
  router.add(
    {
      method: 'GET',
      path: '/_emulator/workspaces/:workspaceId',
      operationId: 'getWorkspace',
      tags,
      security,
      params: workspaceId,
      summary: 'Settings of a workspace',
      responses: { 200: { description: 'Workspace settings', schema: WorkspaceRecordSchema } },
      errors: ['svc.tenant.not_found'],
    },
    async ({ params }) => ({ status: 200, body: await emulator.getWorkspace(params.workspaceId) }),
  );
  router.add(
    {
      method: 'PATCH',
      path: '/_emulator/workspaces/:workspaceId',
      operationId: 'updateWorkspace',
      tags,
      security,
      params: workspaceId,
      summary: 'Change rate limit, daily activity cap, credits and plan caps (partial)',
      body: WorkspaceSettingsPatchSchema,
      responses: { 200: { description: 'Workspace settings', schema: WorkspaceRecordSchema } },
      errors: ['svc.request.validation_failed', 'svc.tenant.not_found'],
    },
    async ({ params, body }) => ({ status: 200, body: await emulator.updateWorkspace(params.workspaceId, body) }),
  );
  router.add(
    {
      method: 'DELETE',
      path: '/_emulator/workspaces/:workspaceId',
      operationId: 'deleteWorkspace',
      tags,
      security,
      params: workspaceId,
      summary: 'Drop a workspace and everything in it',
      responses: { 200: { description: 'Deleted', schema: WorkspaceDeletedSchema } },
      errors: ['svc.tenant.not_found'],
    },
    async ({ params }) => {
      await emulator.deleteWorkspace(params.workspaceId);
      return { status: 200, body: { workspaceId: params.workspaceId, deleted: true as const } };
    },
  );

  router.add(
    {
      method: 'GET',
      path: '/_emulator/workspaces/:workspaceId/lexicon',
      operationId: 'getLexicon',
      tags,
      security,
      params: workspaceId,
      summary:
        "The bilingual lexicon the workspace learned from its own translations (twin documents), which `/query` uses to bring a question's words to the other language; empty until sources in both languages are ready",
      responses: { 200: { description: 'Lexicon', schema: LexiconSchema } },
      errors: ['svc.tenant.not_found'],
    },
    async ({ params }) => ({ status: 200, body: await emulator.getLexicon(params.workspaceId!) }),
  );

  router.add(
    {
      method: 'POST',
      path: '/_emulator/reset',
      operationId: 'resetEmulator',
      tags,
      security,
      summary: 'Back to the loaded fixtures',
      responses: { 200: { description: 'Reset done', schema: ResetSchema } },
    },
    async () => {
      await emulator.reset();
      return { status: 200, body: { reset: true as const } };
    },
  );
  router.add(
    {
      method: 'GET',
      path: '/_emulator/state',
      operationId: 'exportState',
      tags,
      security,
      summary: 'Export the whole state (snapshot)',
      responses: { 200: { description: 'State document', schema: StateDocumentSchema } },
    },
    async () => ({ status: 200, body: await emulator.exportState() }),
  );
  router.add(
    {
      method: 'PUT',
      path: '/_emulator/state',
      operationId: 'importState',
      tags,
      security,
      summary: 'Import a whole state (restore); a row the emulator could not have written is refused with 400 naming it, and nothing changes',
      body: v.unknown(),
      responses: { 200: { description: 'Imported', schema: ImportedSchema } },
      errors: ['svc.request.validation_failed', 'svc.request.payload_too_large'],
    },
    async ({ body }) => {
      await emulator.importState(body);
      return { status: 200, body: { imported: true as const } };
    },
  );

  router.add(
    {
      method: 'GET',
      path: '/_emulator/clock',
      operationId: 'getClock',
      tags,
      security,
      summary: 'The emulated time',
      responses: { 200: { description: 'Clock', schema: ClockSchema } },
    },
    () => ({ status: 200, body: emulator.clock.get() }),
  );
  router.add(
    {
      method: 'POST',
      path: '/_emulator/clock',
      operationId: 'moveClock',
      tags,
      security,
      summary: 'Move the emulated time forward; what came due runs before the answer',
      body: ClockMoveSchema,
      responses: { 200: { description: 'Clock', schema: ClockSchema } },
      errors: ['svc.request.validation_failed'],
    },
    async ({ body }) => {
      // A move back or past the year 9000 is refused by the clock itself, moving nothing (D-1080).
      if ('advanceMs' in body) await emulator.clock.advance(body.advanceMs);
      else await emulator.clock.set(parseIso(body.now)!);
      return { status: 200, body: emulator.clock.get() };
    },
  );

  router.add(
    {
      method: 'POST',
      path: '/_emulator/queue/drain',
      operationId: 'drainQueue',
      tags,
      security,
      summary: 'Answer once every queued job has finished',
      responses: { 200: { description: 'How many jobs this process finished since the last drain', schema: DrainedSchema } },
    },
    async () => ({ status: 200, body: { ran: await emulator.drain() } }),
  );

  router.add(
    {
      method: 'PUT',
      path: '/_emulator/web',
      operationId: 'setOfflineWeb',
      tags,
      security,
      summary:
        'Replace the offline web URL sources are fetched from: pages ({ url, status?, headers?, body? or bodyBase64?, delayMs? }) and a dns table ({ host: [addresses] })',
      body: WebDefinitionSchema,
      responses: { 200: { description: 'How many pages and hosts the offline web now has', schema: WebSummarySchema } },
      errors: ['svc.request.validation_failed', 'svc.request.payload_too_large'],
    },
    async ({ body }) => ({ status: 200, body: await emulator.setWeb(body) }),
  );
  router.add(
    {
      method: 'GET',
      path: '/_emulator/web',
      operationId: 'getOfflineWeb',
      tags,
      security,
      summary: 'The offline web in force',
      responses: { 200: { description: 'Pages and dns table', schema: WebDefinitionSchema } },
    },
    async () => ({ status: 200, body: await emulator.getWeb() }),
  );

  router.add(
    {
      method: 'POST',
      path: '/_emulator/faults',
      operationId: 'injectFault',
      tags,
      security,
      summary:
        'Inject a failure: requests matching method and path (`*` one segment, `**` any) answer status/code, `times` times (default: until removed); or `ingest` makes the next ingestions fail with that source error',
      body: FaultSchema,
      responses: { 201: { description: 'The fault, or the queued ingestion failures', schema: v.union([FaultRecordSchema, IngestFaultsSchema]) } },
      errors: ['svc.request.validation_failed'],
    },
    async ({ body }) => ({ status: 201, body: await emulator.injectFault(body) }),
  );
  router.add(
    {
      method: 'GET',
      path: '/_emulator/faults',
      operationId: 'listFaults',
      tags,
      security,
      summary: 'The active faults: request faults, then queued ingestion failures (`ingest`) with how many ingestions each still fails',
      responses: { 200: { description: 'Faults', schema: FaultListSchema } },
    },
    async () => ({ status: 200, body: { data: await emulator.listFaults() } }),
  );
  router.add(
    {
      method: 'DELETE',
      path: '/_emulator/faults',
      operationId: 'clearFaults',
      tags,
      security,
      summary: 'Remove every fault and queued ingestion failure',
      responses: { 200: { description: 'Cleared', schema: FaultsClearedSchema } },
    },
    async () => ({ status: 200, body: { cleared: await emulator.clearFaults() } }),
  );
  router.add(
    {
      method: 'DELETE',
      path: '/_emulator/faults/:faultId',
      operationId: 'removeFault',
      tags,
      security,
      params: { faultId: idParam('fault, or of queued ingestion failures, as `GET /_emulator/faults` lists it', 'flt') },
      summary: 'Remove one fault, or one entry of queued ingestion failures, by its id; the others stay',
      responses: { 200: { description: 'What was removed', schema: FaultRemovedSchema } },
      errors: ['svc.resource.not_found'],
    },
    async ({ params }) => ({ status: 200, body: { removed: await emulator.removeFault(params.faultId) } }),
  );

  router.add(
    {
      method: 'GET',
      path: '/_emulator/requests',
      operationId: 'listRequests',
      tags,
      security,
      summary: 'The request journal, newest first (the last 1,000)',
      query: RequestsQuerySchema,
      responses: { 200: { description: 'Journal', schema: RequestListSchema } },
      errors: ['svc.request.validation_failed'],
    },
    async ({ query }) => ({ status: 200, body: { data: await emulator.requests(query.limit) } }),
  );
}

/**
 * Collects until the heap stops shrinking (at most five rounds). One collection is not
 * enough: what undici's requests and responses hold is freed by FinalizationRegistry
 * callbacks, which run as tasks after the collection that found them, so a heap read
 * right after one gc() still counts the streams of every request of the last cycle.
 */
async function collectFully(gc: () => void): Promise<void> {
  let before = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 5; round++) {
    gc();
    const used = process.memoryUsage().heapUsed;
    if (used >= before) return;
    before = used;
    await nextTask();
  }
}
