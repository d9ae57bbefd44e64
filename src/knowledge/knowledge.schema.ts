import * as v from 'valibot';
import { named, namedListPage } from '../platform/named-schema.js';
import { listQuery } from '../platform/pagination.js';
import { TopicSchema } from '../platform/topic-tag.js';
import { clientText, minChars, notBlank } from '../platform/validation.js';
import { MAX_PAIRS } from './lexicon/learn.js';

export const TOPICS_MAX = 12;

/** Topic tags of an add: at most 12 sent, normalised, duplicates collapsed (first kept). */
export const TopicsSchema = v.pipe(
  v.array(TopicSchema),
  v.maxLength(TOPICS_MAX, `must have at most ${TOPICS_MAX} items`),
  v.transform((topics) => [...new Set(topics)]),
);

const AgentId = v.pipe(v.string(), minChars(1, 'must not be empty'));
const AgentIdSchema = v.optional(v.nullable(AgentId), null);
const Title = clientText({ trim: true, min: 1, max: 120, line: true });

export const TextAddSchema = named(
  'TextSourceCreate',
  v.strictObject({
    title: Title,
    text: v.pipe(clientText({ min: 1, max: 200_000 }), notBlank()),
    topics: v.optional(TopicsSchema, []),
    agentId: AgentIdSchema,
  }),
);

export const SYNC_TTL_DEFAULT = 1440;
// No re-crawl further apart than ten years: past that, `nextSyncAt` stops being a date.
const SYNC_TTL_MAX = 10 * 365 * 24 * 60;

/** API.md, Limits: crawled URL length. */
const URL_MAX = 2048;

/** The address a URL source stores and crawls: the URL as parsed (percent-encoded), without its fragment. */
export function crawledUrl(input: string): string {
  const url = new URL(input);
  url.hash = '';
  return url.href;
}

export const UrlAddSchema = named(
  'UrlSourceCreate',
  v.strictObject({
    url: v.pipe(
      clientText({ trim: true, max: URL_MAX }),
      v.check((s) => URL.canParse(s), 'must be an absolute URL'),
      // The limit holds for the URL stored and crawled too (D-1083): "é" is sent as one
      // character and crawled as six ("%C3%A9").
      v.check((s) => !URL.canParse(s) || crawledUrl(s).length <= URL_MAX, `must be at most ${URL_MAX} characters once percent-encoded`),
    ),
    syncTtlMinutes: v.optional(
      v.pipe(
        v.number(),
        v.integer('must be a whole number of minutes'),
        v.minValue(60, 'must be at least 60'),
        v.maxValue(SYNC_TTL_MAX, `must be at most ${SYNC_TTL_MAX}`),
      ),
      SYNC_TTL_DEFAULT,
    ),
    topics: v.optional(TopicsSchema, []),
    agentId: AgentIdSchema,
  }),
);

const ClaimText = clientText({ trim: true, min: 1, max: 2000 });

export const ClaimAddSchema = named(
  'ClaimSourceCreate',
  v.strictObject({
    claim: v.strictObject({ es: ClaimText, en: ClaimText }),
    topics: v.optional(TopicsSchema, []),
    agentId: AgentIdSchema,
  }),
);

/** Multipart fields arrive as strings: `topics` is a JSON array in a string (CONTRACT). */
const TopicsField = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    try {
      return JSON.parse(dataset.value) as unknown;
    } catch {
      addIssue({ message: 'must be a JSON array of strings' });
      return NEVER;
    }
  }),
  TopicsSchema,
);

/** The longest file name an upload keeps (a file system's, in characters). */
export const FILE_NAME_MAX = 255;

/**
 * A file name the source may keep and show (`fileName`, D-1086): client text of at most
 * 255 characters once trimmed, no control character. The multipart body's limit alone
 * let a name of 18 million characters through, stored and sent back by every list of sources.
 */
const KeepableName = v.pipe(
  clientText({ trim: true, max: FILE_NAME_MAX }),
  v.check((name) => !/\p{Cc}/u.test(name)),
);

export const UploadAddSchema = named(
  'UploadSourceCreate',
  v.strictObject({
    file: v.pipe(
      v.instance(File, 'must be a file'),
      v.check((f) => f.size > 0, 'must not be empty'),
      v.check((f) => v.is(KeepableName, f.name), `must have a name of at most ${FILE_NAME_MAX} characters, without control characters`),
    ),
    title: v.optional(Title),
    topics: v.optional(TopicsField, '[]'),
    agentId: v.optional(AgentId),
  }),
);

export const TopicMergeSchema = named(
  'TopicMerge',
  v.strictObject({
    from: TopicSchema,
    into: TopicSchema,
    agentId: AgentIdSchema,
  }),
);

export type TextAdd = v.InferOutput<typeof TextAddSchema>;
export type UrlAdd = v.InferOutput<typeof UrlAddSchema>;
export type ClaimAdd = v.InferOutput<typeof ClaimAddSchema>;
export type UploadAdd = v.InferOutput<typeof UploadAddSchema>;

const AgentFilter = { agentId: v.optional(AgentId) };
export const SourceListQuerySchema = listQuery(AgentFilter);
export const TopicListQuerySchema = listQuery(AgentFilter);

export const SourceSchema = named(
  'Source',
  v.object({
    id: v.string(),
    agentId: v.nullable(v.string()),
    kind: v.picklist(['upload', 'url', 'claim']),
    title: v.string(),
    status: v.picklist(['pending', 'ready', 'failed']),
    error: v.optional(v.string()),
    lang: v.picklist(['es', 'en']),
    sourceLang: v.optional(v.picklist(['es', 'en'])),
    translated: v.boolean(),
    topics: v.array(v.string()),
    fileName: v.optional(v.string()),
    contentType: v.optional(v.string()),
    byteSize: v.optional(v.number()),
    url: v.optional(v.string()),
    resolvedUrl: v.optional(v.string()),
    lastFetchedAt: v.optional(v.string()),
    syncTtlMinutes: v.optional(v.number()),
    nextSyncAt: v.optional(v.string()),
    claim: v.optional(v.object({ es: v.string(), en: v.string() })),
    chunkCount: v.number(),
    tokenCount: v.number(),
    summary: v.string(),
    createdAt: v.string(),
    updatedAt: v.string(),
  }),
);

export type Source = v.InferOutput<typeof SourceSchema>;

export const SourceListSchema = namedListPage('SourceList', SourceSchema);
export const SourceDeletedSchema = named('SourceDeleted', v.object({ sourceId: v.string(), deleted: v.literal(true) }));
export const TopicCountSchema = named('TopicCount', v.object({ topic: v.string(), sourceCount: v.number() }));
export const TopicListSchema = namedListPage('TopicList', TopicCountSchema);
export const TopicMergedSchema = named('TopicMerged', v.object({ from: v.string(), into: v.string(), sourcesUpdated: v.number() }));

/** `knowledge_sources.topics` as the service writes it: normalised tags, at most 12, none twice. */
export const StoredTopicsSchema = v.pipe(
  v.array(TopicSchema),
  v.maxLength(TOPICS_MAX, `must have at most ${TOPICS_MAX} items`),
  v.check((topics) => new Set(topics).size === topics.length, 'must name each topic once'),
);
/** `knowledge_sources.claim`: both languages, under the rules of a claim add. */
export const StoredClaimSchema = ClaimAddSchema.pipe[0].entries.claim;
/**
 * `knowledge_lexicons.data` as `learnLexicon` writes it (D-785): Spanish and English stems
 * of two or more characters, a weight from 0 to 1 in thousandths, at most `MAX_PAIRS`
 * pairs, whole counts. A stem is a word of a chunk: no shorter bound than a chunk's text.
 */
const LexiconStem = v.pipe(
  v.string(),
  v.minLength(2, 'must be a stem of 2 or more characters'),
  v.maxLength(1_000_000),
  v.check((s) => s.isWellFormed(), 'must be well-formed Unicode'),
);
const LexiconCount = v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(0, 'must be 0 or more'), v.maxValue(Number.MAX_SAFE_INTEGER));
const ContentHash = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'must be a content hash (64 hex digits)'));
/** A bound on the twins a lexicon names, well above any workspace's sources. */
const MAX_TWIN_ROWS = 1_000_000;
export const StoredLexiconSchema = v.strictObject({
  pairs: v.pipe(
    v.array(
      v.strictTuple([
        LexiconStem,
        LexiconStem,
        v.pipe(
          v.number(),
          v.minValue(0, 'must be from 0 to 1'),
          v.maxValue(1, 'must be from 0 to 1'),
          v.check((w) => Math.round(w * 1000) / 1000 === w, 'must be in thousandths'),
        ),
      ]),
    ),
    v.maxLength(MAX_PAIRS, `must have at most ${MAX_PAIRS} pairs`),
  ),
  twins: LexiconCount,
  units: LexiconCount,
  // The content hashes of the sources found to have a twin (written from D-1123 to D-1124).
  twinned: v.optional(v.pipe(v.array(ContentHash), v.maxLength(MAX_TWIN_ROWS))),
  // The twins found, as pairs of content hashes (D-1124); absent before it.
  twinPairs: v.optional(v.pipe(v.array(v.tuple([ContentHash, ContentHash])), v.maxLength(MAX_TWIN_ROWS))),
});
/** The scalar fields of a source a client sets: its title and re-crawl interval. */
export const StoredSourceFields = {
  // A document's own title (an HTML <title>) may be longer than a client's.
  title: clientText({ min: 1, max: 1000 }),
  url: UrlAddSchema.pipe[0].entries.url,
  syncTtlMinutes: v.pipe(v.number(), v.integer(), v.minValue(60), v.maxValue(SYNC_TTL_MAX)),
};
