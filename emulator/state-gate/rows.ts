import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { ASSET_IMAGE_TYPES, ASSET_VIDEO_TYPES } from '../../src/assets/media-types.js';
import { StoredKeyNameSchema, StoredScopesSchema } from '../../src/auth/auth.schema.js';
import { SLOT_TYPES } from '../../src/brand/brand-file.js';
import { BRAND_SLOTS, StoredFooterSchema, StoredNavbarSchema, type BrandSlot } from '../../src/brand/brand.schema.js';
import { StoredComponentsSchema } from '../../src/chat/chat.schema.js';
import type { TABLES } from '../../src/db/schema/index.js';
import { INGEST_JOB, RECRAWL_JOB } from '../../src/knowledge/ingestion.js';
import { StoredClaimSchema, StoredLexiconSchema, StoredSourceFields, StoredTopicsSchema } from '../../src/knowledge/knowledge.schema.js';
import { MEDIA_TYPES } from '../../src/knowledge/pipeline/formats.js';
import {
  StoredBodySchema,
  StoredEditorialSchema,
  StoredMachineTextsSchema,
  StoredPageFields,
  StoredPageSitemapSchema,
  StoredSeoSchema,
} from '../../src/pages/pages.schema.js';
import { REPLAYED_STATUSES, StoredReplayHeadersSchema, isJsonText } from '../../src/platform/idempotency.js';
import { isIngestFailureCode } from '../../src/platform/ingest-failures.js';
import { RESERVED_SLUGS } from '../../src/projects/slug.js';
import { TRANSLATE_JOB } from '../../src/projects/translate-job.js';
import { isReservedPath } from '../../src/pages/page-path.js';
import { LEXICON_JOB } from '../../src/knowledge/lexicon/lexicon-builder.js';
import {
  StoredAnalyticsSchema,
  StoredLocalesSchema,
  StoredProjectFields,
  StoredRobotsSchema,
  StoredSitemapSchema,
} from '../../src/projects/projects.schema.js';
import { StoredTokensSchema } from '../../src/theme/theme.schema.js';
import { StoredCapsSchema, StoredWorkspaceFields } from '../../src/workspaces/workspaces.schema.js';
import { bytes, exact, flag, id, int, json, lang, oneOf, sha256, text, timestamp } from './columns.js';

// The row schemas of the state gate, table by table (decisions, D-720, D-721): every column
// as the service writes it, JSON columns under the schemas the API validates with.

type Row = Record<string, unknown>;
type AnySchema = v.GenericSchema<unknown, unknown>;

/** A fault of one row: the column (or `''` for the row) and why. */
export interface RowFault {
  column: string;
  reason: string;
}

/** What the gate knows of a table. */
export interface TableRule {
  /** The row as the service writes it: every column, nothing else. */
  row?: AnySchema;
  /** How a refusal names a row (its id, or its key). */
  name?(row: Row): string;
  /** Checks that need more than one column (sizes against bytes, a hash, a kind against its fields). */
  check?(row: Row): RowFault[];
  /** Not state: never in a state document (`meta`), or derived and rebuilt after an import. */
  absent?: 'not state' | 'derived';
}

const nullable = <S extends AnySchema>(schema: S) => v.nullable(schema);
const hashOf = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const workspaceId = id('ws');

/** The size and hash columns of stored bytes. */
function sizeAndHash(row: Row, data: string): RowFault[] {
  const stored = row[data] as Uint8Array;
  const faults: RowFault[] = [];
  if (row.byte_size !== stored.byteLength) faults.push({ column: 'byte_size', reason: `must be the length of ${data} (${stored.byteLength})` });
  if (row.sha256 !== hashOf(stored)) faults.push({ column: 'sha256', reason: `must be the SHA-256 of ${data}` });
  return faults;
}

const IngestPayload = v.strictObject({
  sourceId: id('src'),
  ownTitle: v.optional(v.literal(true)),
  // An encoding name, as the platform's TextDecoder gives it (D-1190).
  charset: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9_-]{1,40}$/, 'must be an encoding name'))),
});
const RecrawlPayload = v.strictObject({ sourceId: id('src'), syncAt: timestamp });
const TranslatePayload = v.strictObject({ projectId: id('prj'), locale: lang, pageId: v.optional(id('pg')) });
/** The payload of each kind of job the service registers (a test checks none is missing). */
export const JOB_PAYLOADS: Record<string, [AnySchema, string]> = {
  [INGEST_JOB]: [IngestPayload, '{ sourceId, ownTitle?, charset? }'],
  [RECRAWL_JOB]: [RecrawlPayload, '{ sourceId, syncAt }'],
  [TRANSLATE_JOB]: [TranslatePayload, '{ projectId, locale, pageId? }'],
  // A workspace's lexicon, learned again once no source is pending (D-790): no payload.
  [LEXICON_JOB]: [v.strictObject({}), '{}'],
};

// The default embedder's id names its dimensions.
const HASH_EMBEDDER = /^svc-hash-ngram-v1-(\d+)$/;

/** Every table of the store, and what the gate checks of its rows. */
/** The service never gives a project a slug the platform reserves (svc.project.slug_reserved, API.md Project). */
function reservedSlug(row: Row): RowFault[] {
  return RESERVED_SLUGS.has(String(row.slug)) ? [{ column: 'slug', reason: `must not be ${String(row.slug)}, which the platform reserves` }] : [];
}

export const ROW_RULES: Record<(typeof TABLES)[number], TableRule> = {
  meta: { absent: 'not state' },
  knowledge_terms: { absent: 'derived' },
  knowledge_scope_indexes: { absent: 'derived' },

  workspaces: {
    row: v.strictObject({
      id: workspaceId,
      name: StoredWorkspaceFields.name,
      plan: StoredWorkspaceFields.plan,
      rate_limit: StoredWorkspaceFields.rateLimit,
      rate_window_seconds: StoredWorkspaceFields.rateWindowSeconds,
      daily_activity_cap: nullable(StoredWorkspaceFields.count),
      credits: StoredWorkspaceFields.count,
      messages_used: StoredWorkspaceFields.count,
      caps: json(StoredCapsSchema, 'a JSON object of every plan cap (a count or null)'),
      created_at: timestamp,
      updated_at: timestamp,
    }),
  },
  api_keys: {
    row: v.strictObject({
      id: id('key'),
      workspace_id: workspaceId,
      name: StoredKeyNameSchema,
      prefix: v.pipe(v.string(), v.regex(/^svc_(test|live)_[0-9A-Za-z]{3}$/, 'must be the first 12 characters of a key')),
      env: oneOf(['test', 'live'] as const),
      hash: sha256,
      scopes: json(StoredScopesSchema, 'a JSON array of scopes'),
      created_at: timestamp,
      expires_at: nullable(timestamp),
      revoked_at: nullable(timestamp),
    }),
    check: (row) => ((row.prefix as string).startsWith(`svc_${row.env}_`) ? [] : [{ column: 'prefix', reason: 'must be a key of its env' }]),
  },
  idempotency: {
    row: v.strictObject({
      workspace_id: workspaceId,
      key_id: id('key'),
      idem_key: text(255, 1),
      fingerprint: sha256,
      state: v.pipe(v.string(), v.regex(/^(done|running(:ins_[0-9a-f]{24})?)$/, 'must be done or running')),
      status: nullable(int(100, 599)),
      headers: nullable(json(StoredReplayHeadersSchema, 'the headers the emulator records ({"content-type":"application/json"})')),
      body: nullable(v.string()),
      created_at: timestamp,
    }),
    name: (row) => `${row.key_id}/${row.idem_key}`,
    check(row) {
      if (row.state !== 'done') {
        return ['status', 'headers', 'body'].filter((c) => row[c] !== null).map((column) => ({ column, reason: 'must be null while the request runs' }));
      }
      const faults: RowFault[] = [];
      if (!REPLAYED_STATUSES.includes(row.status as number))
        faults.push({ column: 'status', reason: `must be a status the route answers (${REPLAYED_STATUSES.join(', ')})` });
      if (row.headers === null) faults.push({ column: 'headers', reason: 'must be the recorded headers' });
      if (!isJsonText(row.body)) faults.push({ column: 'body', reason: 'must be the recorded JSON answer' });
      return faults;
    },
  },
  activity: {
    row: v.strictObject({
      workspace_id: workspaceId,
      day: v.pipe(
        v.string(),
        v.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a UTC day (YYYY-MM-DD)'),
        v.check((d) => timestampOfDay(d), 'must be a UTC day (YYYY-MM-DD)'),
      ),
      count: int(),
    }),
    name: (row) => `${row.workspace_id}/${row.day}`,
  },
  jobs: {
    row: v.strictObject({
      id: id('job'),
      workspace_id: workspaceId,
      kind: oneOf(Object.keys(JOB_PAYLOADS)),
      payload: v.string('must be JSON text'),
      status: oneOf(['queued', 'running', 'done', 'failed'] as const),
      run_at: timestamp,
      attempts: int(),
      last_error: nullable(text(10_000)),
      created_at: timestamp,
      updated_at: timestamp,
    }),
    check(row) {
      const [schema, what] = JOB_PAYLOADS[row.kind as string]!;
      const fault = v.safeParse(json(schema, `a ${row.kind} payload ${what}`), row.payload);
      if (!fault.success) return [{ column: 'payload', reason: fault.issues[0].message }];
      // Only a re-crawl is queued for later; every other job is due when it is queued. A
      // lexicon job due in the year 8999 made every question of its workspace wait (D-1198).
      if (row.kind !== RECRAWL_JOB && String(row.run_at) > String(row.created_at)) {
        return [{ column: 'run_at', reason: `must not be after created_at: only a ${RECRAWL_JOB} job is queued for later` }];
      }
      return [];
    },
  },
  agents: {
    row: v.strictObject({
      id: id('agt'),
      workspace_id: workspaceId,
      name: exact(text(80, 1), 'a name of 1 to 80 characters'),
      business_name: exact(text(120, 1), 'a business name of 1 to 120 characters'),
      description: text(2000),
      created_at: timestamp,
      updated_at: timestamp,
    }),
  },
  conversations: {
    row: v.strictObject({ id: id('cnv'), workspace_id: workspaceId, agent_id: id('agt'), created_at: timestamp, updated_at: timestamp }),
  },
  chat_messages: {
    row: v.strictObject({
      id: id('msg'),
      workspace_id: workspaceId,
      conversation_id: id('cnv'),
      agent_id: id('agt'),
      role: oneOf(['user', 'assistant'] as const),
      content: text(1_000_000),
      lang,
      cache_key: nullable(text(200)),
      knowledge_version: nullable(text(200)),
      components: nullable(json(StoredComponentsSchema, 'a JSON array of answer components')),
      created_at: timestamp,
    }),
  },
  knowledge_sources: {
    row: v.strictObject({
      id: id('src'),
      workspace_id: workspaceId,
      agent_id: nullable(id('agt')),
      kind: oneOf(['upload', 'url', 'claim'] as const),
      title: StoredSourceFields.title,
      status: oneOf(['pending', 'ready', 'failed'] as const),
      error: nullable(
        v.pipe(
          v.string(),
          v.check<string, string>((code) => isIngestFailureCode(code), 'must be an ingestion failure code'),
        ),
      ),
      lang,
      source_lang: nullable(lang),
      translated: flag,
      topics: json(StoredTopicsSchema, 'a JSON array of topic tags'),
      file_name: nullable(text(1000)),
      content_type: nullable(oneOf(Object.values(MEDIA_TYPES))),
      byte_size: nullable(int()),
      url: nullable(exact(StoredSourceFields.url, 'an absolute URL')),
      resolved_url: nullable(exact(StoredSourceFields.url, 'an absolute URL')),
      last_fetched_at: nullable(timestamp),
      sync_ttl_minutes: nullable(StoredSourceFields.syncTtlMinutes),
      next_sync_at: nullable(timestamp),
      claim: nullable(json(StoredClaimSchema, 'a JSON object { es, en }')),
      chunk_count: int(),
      token_count: int(),
      summary: text(10_000),
      content_hash: nullable(sha256),
      created_at: timestamp,
      updated_at: timestamp,
    }),
    check(row) {
      const faults: RowFault[] = [];
      if ((row.kind === 'claim') !== (row.claim !== null)) faults.push({ column: 'claim', reason: 'a claim source has a claim, and only a claim source' });
      if ((row.kind === 'url') !== (row.url !== null)) faults.push({ column: 'url', reason: 'a URL source has a URL, and only a URL source' });
      return faults;
    },
  },
  knowledge_inputs: {
    row: v.strictObject({ source_id: id('src'), workspace_id: workspaceId, content: bytes, created_at: timestamp }),
    name: (row) => String(row.source_id),
  },
  knowledge_chunks: {
    row: v.strictObject({
      id: id('chk'),
      workspace_id: workspaceId,
      source_id: id('src'),
      agent_id: nullable(id('agt')),
      position: int(),
      lang,
      text: text(1_000_000),
      token_count: int(),
      embedding: bytes,
      embedder_id: text(200, 1),
      // Derived: analysed again after an import (D-307).
      terms: v.null('must be null: chunks are analysed again after an import'),
      analyzer_id: v.null('must be null: chunks are analysed again after an import'),
    }),
    check(row) {
      const embedding = row.embedding as Uint8Array;
      const dims = HASH_EMBEDDER.exec(row.embedder_id as string)?.[1];
      if (embedding.byteLength === 0 || embedding.byteLength % 4 !== 0) return [{ column: 'embedding', reason: 'must be float32 values' }];
      if (dims !== undefined && embedding.byteLength !== Number(dims) * 4)
        return [{ column: 'embedding', reason: `must be ${dims} float32 values (${row.embedder_id})` }];
      const view = new DataView(embedding.buffer, embedding.byteOffset, embedding.byteLength);
      for (let i = 0; i < embedding.byteLength; i += 4)
        if (!Number.isFinite(view.getFloat32(i, true))) return [{ column: 'embedding', reason: 'must hold finite numbers' }];
      return [];
    },
  },
  knowledge_lexicons: {
    row: v.strictObject({
      workspace_id: workspaceId,
      // The print of the sources it was learned from (a stale one is learned again).
      print: v.pipe(v.string(), v.regex(/^lx_[0-9a-f]{24}$/, 'must be a lexicon print (lx_ and 24 hex digits)')),
      data: json(StoredLexiconSchema, 'a lexicon { pairs: [es, en, weight], twins, units, twinned?, twinPairs? }'),
    }),
    name: (row) => String(row.workspace_id),
  },
  projects: {
    row: v.strictObject({
      id: id('prj'),
      workspace_id: workspaceId,
      name: exact(StoredProjectFields.name, 'a name of 1 to 80 characters'),
      slug: exact(StoredProjectFields.slug, 'a slug as the service stores it'),
      locales: json(StoredLocalesSchema, 'a JSON array of 1 or 2 languages'),
      default_locale: lang,
      robots: json(StoredRobotsSchema, 'the robots settings'),
      analytics: json(StoredAnalyticsSchema, 'the analytics ids'),
      sitemap: json(StoredSitemapSchema, 'the sitemap settings'),
      llms_text: text(10_000_000),
      llms_generated_at: timestamp,
      created_at: timestamp,
      updated_at: timestamp,
    }),
    check: (row) => [
      ...((JSON.parse(row.locales as string) as string[]).includes(row.default_locale as string)
        ? []
        : [{ column: 'default_locale', reason: 'must be one of locales' }]),
      ...reservedSlug(row),
    ],
  },
  project_slugs: {
    row: v.strictObject({
      slug: exact(StoredProjectFields.slug, 'a slug as the service stores it'),
      workspace_id: workspaceId,
      project_id: id('prj'),
      state: oneOf(['active', 'retired'] as const),
      updated_at: timestamp,
    }),
    check: reservedSlug,
    name: (row) => String(row.slug),
  },
  pages: {
    row: v.strictObject({
      id: id('pg'),
      workspace_id: workspaceId,
      project_id: id('prj'),
      name: exact(StoredPageFields.name, 'a name of 1 to 80 characters'),
      kind: oneOf(['agent', 'document'] as const),
      path: exact(StoredPageFields.path, 'a page path as the service stores it'),
      status: oneOf(['draft', 'published'] as const),
      default_locale: lang,
      editorial: json(StoredEditorialSchema, 'the editorial texts'),
      seo: json(StoredSeoSchema, 'the SEO texts'),
      sitemap: json(StoredPageSitemapSchema, 'the page sitemap settings'),
      body: json(StoredBodySchema, 'the body texts { es, en }'),
      agent_id: nullable(id('agt')),
      machine_texts: json(StoredMachineTextsSchema, 'a JSON array of text paths'),
      created_at: timestamp,
      updated_at: timestamp,
      published_at: nullable(timestamp),
    }),
    check: (row) => [
      ...((row.kind === 'agent') === (row.agent_id !== null) ? [] : [{ column: 'agent_id', reason: 'an agent page names its agent, a document page none' }]),
      // The service refuses a path under a reserved first segment (svc.page.path_reserved), so none is stored.
      ...(isReservedPath(String(row.path))
        ? [{ column: 'path', reason: `must not be under /${String(row.path).split('/')[1]}, which the platform reserves` }]
        : []),
    ],
  },
  themes: {
    row: v.strictObject({
      project_id: id('prj'),
      workspace_id: workspaceId,
      tokens: json(StoredTokensSchema, 'the theme tokens'),
      customized: flag,
      updated_at: timestamp,
    }),
    name: (row) => String(row.project_id),
  },
  assets: {
    row: v.strictObject({
      id: id('ast'),
      workspace_id: workspaceId,
      key: nullable(v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be an asset key'))),
      page_id: nullable(id('pg')),
      alt: nullable(text(500)),
      kind: oneOf(['image', 'video'] as const),
      content_type: oneOf([...ASSET_IMAGE_TYPES, ...ASSET_VIDEO_TYPES]),
      byte_size: int(),
      width: nullable(int(1, 1_000_000)),
      height: nullable(int(1, 1_000_000)),
      duration_seconds: nullable(v.pipe(v.number(), v.minValue(0), v.maxValue(60))),
      sha256,
      bytes,
      created_at: timestamp,
    }),
    check(row) {
      const types = row.kind === 'image' ? ASSET_IMAGE_TYPES : ASSET_VIDEO_TYPES;
      const faults = sizeAndHash(row, 'bytes');
      if (!types.includes(row.content_type as string)) faults.push({ column: 'content_type', reason: `must be a type of ${row.kind}` });
      return faults;
    },
  },
  brands: {
    row: v.strictObject({
      workspace_id: workspaceId,
      project_id: id('prj'),
      navbar: json(StoredNavbarSchema, 'the navbar { links, cta }'),
      footer: json(StoredFooterSchema, 'the footer { text, links }'),
      created_at: timestamp,
      updated_at: timestamp,
    }),
    name: (row) => String(row.project_id),
  },
  brand_files: {
    row: v.strictObject({
      id: id('ast'),
      workspace_id: workspaceId,
      project_id: id('prj'),
      slot: oneOf(BRAND_SLOTS),
      content_type: v.string(),
      byte_size: int(),
      sha256,
      bytes,
      created_at: timestamp,
    }),
    check(row) {
      const faults = sizeAndHash(row, 'bytes');
      if (!SLOT_TYPES[row.slot as BrandSlot].includes(row.content_type as string))
        faults.push({ column: 'content_type', reason: `must be a type the ${row.slot} slot takes` });
      return faults;
    },
  },
};

function timestampOfDay(day: string): boolean {
  const ms = Date.parse(`${day}T00:00:00.000Z`);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === day;
}
