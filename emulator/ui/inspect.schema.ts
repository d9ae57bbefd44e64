import * as v from 'valibot';
import { named } from '../../src/platform/named-schema.js';
import { integerText } from '../../src/platform/validation.js';
import { AgentSchema } from '../../src/agents/agents.schema.js';
import { AssetSchema } from '../../src/assets/assets.schema.js';
import { KeyRecordSchema } from '../../src/auth/auth.schema.js';
import { SourceSchema } from '../../src/knowledge/knowledge.schema.js';
import { PageSchema } from '../../src/pages/pages.schema.js';
import { ProjectSchema } from '../../src/projects/projects.schema.js';
import { WorkspaceCreateSchema, WorkspaceRecordSchema } from '../../src/workspaces/workspaces.schema.js';

/** How many records of each kind `GET /_emulator/workspaces/{id}/resources` answers by default (newest first). */
export const RESOURCES_PER_KIND = 100;
/** The most of each kind it answers when asked (`?limit=`): the UI's "Show more" asks for up to this many. */
export const RESOURCES_MAX_PER_KIND = 1000;

function firstPage<S extends v.GenericSchema>(item: S) {
  return v.object({ data: v.array(item), hasMore: v.boolean() });
}

/** Message credits as `GET /v1/usage` counts them: `limit` is the workspace's `credits` setting. */
export const MessagesSchema = v.object({ used: v.number(), limit: v.number(), remaining: v.number() });

/** A workspace's settings and the credits it has left (D-854: the list and the detail show the same numbers). */
export const WorkspaceSummarySchema = named('WorkspaceSummary', v.object({ ...WorkspaceRecordSchema.pipe[0].entries, messages: MessagesSchema }));

export type WorkspaceSummary = v.InferOutput<typeof WorkspaceSummarySchema>;

export const WorkspaceListSchema = named('WorkspaceList', v.object({ data: v.array(WorkspaceSummarySchema) }));

/** A key the fixtures made, as the CLI prints it at start-up (D-852). */
export const FixtureKeySchema = named(
  'FixtureKey',
  v.object({
    id: v.string(),
    workspaceId: v.string(),
    name: v.string(),
    prefix: v.string(),
    scopes: v.array(v.string()),
    secret: v.string(),
  }),
);

export type FixtureKey = v.InferOutput<typeof FixtureKeySchema>;

export const FixtureKeyListSchema = named('FixtureKeyList', v.object({ data: v.array(FixtureKeySchema) }));

/** `POST /_emulator/workspaces/keyless`: what `POST /_emulator/workspaces` takes but `scopes` (no key is made). */
export const KeylessWorkspaceSchema = named('KeylessWorkspaceCreate', v.optional(v.omit(WorkspaceCreateSchema.wrapped, ['scopes']), {}));

/** A page as the console lists it: the page, and the heading its body shows (D-1202). */
export const InspectedPageSchema = named(
  'InspectedPage',
  v.object({
    ...PageSchema.pipe[0].entries,
    bodyHeading: v.pipe(
      v.nullable(v.string()),
      v.description(
        "A document page: the first heading its body shows in the page's default language, as the hosted page renders it; null for an agent page or a body without one",
      ),
    ),
  }),
);

export const WorkspaceResourcesSchema = named(
  'WorkspaceResources',
  v.object({
    workspace: WorkspaceRecordSchema,
    credits: MessagesSchema,
    /** Key records as the console lists them: prefix, never secret or hash. */
    keys: firstPage(KeyRecordSchema),
    agents: firstPage(AgentSchema),
    sources: firstPage(SourceSchema),
    projects: firstPage(ProjectSchema),
    /** Pages of every project, newest first. */
    pages: firstPage(InspectedPageSchema),
    assets: firstPage(AssetSchema),
  }),
);

export type WorkspaceResources = v.InferOutput<typeof WorkspaceResourcesSchema>;

export const ResourcesQuerySchema = v.object({
  limit: v.optional(integerText(1, RESOURCES_MAX_PER_KIND, 'How many records of each kind to answer, newest first'), String(RESOURCES_PER_KIND)),
});

export const QueueQuerySchema = v.object({
  limit: v.optional(integerText(1, 1000, 'How many jobs to answer'), '100'),
});

export const QueuedJobSchema = named(
  'QueuedJob',
  v.object({
    id: v.string(),
    workspaceId: v.string(),
    kind: v.string(),
    /** `failed` jobs stay in the queue with their last error; they are not retried. */
    status: v.picklist(['queued', 'running', 'failed']),
    runAt: v.string(),
    /** Whether `runAt` has come on the emulated clock. */
    due: v.boolean(),
    attempts: v.number(),
    lastError: v.nullable(v.string()),
    createdAt: v.string(),
  }),
);

export type QueuedJob = v.InferOutput<typeof QueuedJobSchema>;

export const QueueSchema = named(
  'Queue',
  v.object({
    /** Jobs by `runAt`, then id. */
    data: v.array(QueuedJobSchema),
    hasMore: v.boolean(),
    counts: v.object({ queued: v.number(), running: v.number(), failed: v.number() }),
  }),
);

export type QueueView = v.InferOutput<typeof QueueSchema>;
