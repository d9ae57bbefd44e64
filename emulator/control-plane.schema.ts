import * as v from 'valibot';
import { named } from '../src/platform/named-schema.js';
import { finerThanMilliseconds, parseIso } from '../src/platform/time.js';
import { integerText } from '../src/platform/validation.js';

/*
 * The control plane's bodies and answers (`control-plane.routes.ts`), as valibot schemas:
 * the routes validate with them and the OpenAPI description is made from them.
 */

export const ClockMoveSchema = named(
  'ClockMove',
  v.union(
    [
      v.strictObject({ advanceMs: v.pipe(v.number(), v.integer('must be whole milliseconds'), v.minValue(0, 'time only moves forward')) }),
      v.strictObject({
        now: v.pipe(
          v.string(),
          v.check((s) => parseIso(s) !== undefined, 'must be an RFC 3339 date-time'),
          v.check((s) => !finerThanMilliseconds(s), 'must be whole milliseconds'),
        ),
      }),
    ],
    'send either { advanceMs } or { now }',
  ),
);

export const ClockSchema = named('Clock', v.object({ now: v.string(), frozen: v.boolean() }));
export const MemorySchema = named(
  'Memory',
  v.object({ rss: v.number(), heapTotal: v.number(), heapUsed: v.number(), external: v.number(), arrayBuffers: v.number(), collected: v.boolean() }),
);
/** The most journal entries one read answers: all the journal keeps. */
const REQUESTS_MAX = 1000;
export const RequestsQuerySchema = v.object({
  limit: v.optional(integerText(1, REQUESTS_MAX, 'How many requests to answer, newest first'), '100'),
});
const REQUESTS_LIMIT = `must be an integer from 1 to ${REQUESTS_MAX}`;
/** `emulator.requests(limit)`'s check: what the route's `?limit=` takes, as a number (D-1095). */
export const RequestsLimitSchema = v.object({
  limit: v.pipe(v.number(REQUESTS_LIMIT), v.integer(REQUESTS_LIMIT), v.minValue(1, REQUESTS_LIMIT), v.maxValue(REQUESTS_MAX, REQUESTS_LIMIT)),
});
const JournalEntrySchema = named(
  'RequestRecord',
  v.object({
    at: v.string(),
    method: v.string(),
    host: v.pipe(
      v.nullable(v.string()),
      v.description("The hosted site's host the request was addressed to (`<slug>.localhost`); null for the API and the console routes"),
    ),
    path: v.pipe(v.string(), v.description('The path, without the query string')),
    status: v.number(),
    code: v.nullable(v.string()),
    keyPrefix: v.nullable(v.string()),
    workspaceId: v.pipe(
      v.nullable(v.string()),
      v.description("The key's workspace; for a console route without a key, the workspace its path names (`/workspaces/{id}/keys`)"),
    ),
    requestId: v.string(),
  }),
);
export const CreatedWorkspaceSchema = named(
  'CreatedWorkspace',
  v.object({
    workspaceId: v.string(),
    apiKey: v.object({ id: v.string(), prefix: v.string(), scopes: v.array(v.string()), secret: v.string() }),
  }),
);
export const HealthSchema = named('Health', v.object({ status: v.literal('ok'), version: v.string() }));
export const WorkspaceDeletedSchema = named('WorkspaceDeleted', v.object({ workspaceId: v.string(), deleted: v.literal(true) }));
export const ResetSchema = named('ResetDone', v.object({ reset: v.literal(true) }));
export const ImportedSchema = named('StateImported', v.object({ imported: v.literal(true) }));
export const DrainedSchema = named('QueueDrained', v.object({ ran: v.number() }));
export const FaultRecordSchema = named(
  'Fault',
  v.object({
    id: v.string(),
    match: v.object({ method: v.optional(v.string()), path: v.optional(v.string()) }),
    status: v.number(),
    code: v.string(),
    remaining: v.nullable(v.number()),
  }),
);
const IngestFaultFields = {
  id: v.string(),
  ingest: v.pipe(v.string(), v.description('The source error code the next ingestions fail with')),
  remaining: v.pipe(v.number(), v.description('How many ingestions it still fails')),
};
/** Queued ingestion failures as the list shows them (D-1093). */
const IngestFaultRecordSchema = named('IngestFault', v.object(IngestFaultFields));
export const IngestFaultsSchema = named(
  'IngestFaultsQueued',
  v.object({ ...IngestFaultFields, times: v.pipe(v.number(), v.description('How many ingestions were queued to fail')) }),
);
export const FaultListSchema = named(
  'FaultList',
  v.object({
    data: v.pipe(
      v.array(v.union([FaultRecordSchema, IngestFaultRecordSchema])),
      v.description('The request faults, then the queued ingestion failures not spent yet (`ingest`), in the order they are taken'),
    ),
  }),
);
export const FaultsClearedSchema = named(
  'FaultsCleared',
  v.object({ cleared: v.pipe(v.number(), v.description('How many entries the list had: request faults and queued ingestion failures')) }),
);
export const FaultRemovedSchema = named(
  'FaultRemoved',
  v.object({
    removed: v.pipe(
      v.union([FaultRecordSchema, IngestFaultRecordSchema]),
      v.description('The entry removed, as `GET /_emulator/faults` listed it: a request fault, or queued ingestion failures (`ingest`)'),
    ),
  }),
);
export const RequestListSchema = named('RequestList', v.object({ data: v.array(JournalEntrySchema) }));
export const LexiconSchema = named(
  'Lexicon',
  v.object({
    workspaceId: v.string(),
    twins: v.pipe(v.number(), v.description('Twin documents found (translations of each other), bilingual claims included')),
    units: v.pipe(v.number(), v.description('Aligned pieces (sections, blocks, sentences) the word pairs were learned from')),
    twinnedSources: v.pipe(
      v.array(v.string()),
      v.description(
        "The ready sources with a ready twin in the workspace, by id. In an agent's query a question's translated words weigh as much as its own in the passages of a source whose twin the agent's scope does not hold (D-1123, D-1124)",
      ),
    ),
    pairs: v.pipe(
      v.array(v.object({ es: v.string(), en: v.string(), weight: v.number() })),
      v.description('Spanish and English Snowball stems paired, with how sure (0..1), by Spanish stem'),
    ),
  }),
);

/** A workspace's lexicon as the control plane shows it. */
export type LexiconView = v.InferOutput<typeof LexiconSchema>;
