import * as v from 'valibot';
import { named, namedListPage } from '../platform/named-schema.js';
import { listQuery } from '../platform/pagination.js';
import { LocaleSchema } from './locales.js';
import { clientText } from '../platform/validation.js';
import { normalizeSlug } from './slug.js';

const Name = clientText({ trim: true, min: 1, max: 80, line: true });

/** A client's slug, checked and lowercased; the reason names the rule it breaks. */
export const SlugSchema = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const result = normalizeSlug(dataset.value);
    if ('reason' in result) {
      addIssue({ message: result.reason });
      return NEVER;
    }
    return result.slug;
  }),
);

const Locales = v.pipe(
  v.array(LocaleSchema),
  v.minLength(1, 'must have 1 or 2 items'),
  v.maxLength(2, 'must have 1 or 2 items'),
  v.check((items) => new Set(items).size === items.length, 'must not repeat a locale'),
);

export const CHANGEFREQS = ['always', 'hourly', 'daily', 'weekly', 'monthly', 'yearly', 'never'] as const;
export const ChangefreqSchema = v.picklist(CHANGEFREQS, `must be one of ${CHANGEFREQS.join(', ')}`);
export const PrioritySchema = v.pipe(v.number(), v.minValue(0, 'must be from 0.0 to 1.0'), v.maxValue(1, 'must be from 0.0 to 1.0'));

// Written into robots.txt one per line: a newline or space would smuggle in a rule.
const RobotsPath = v.pipe(
  clientText({ max: 200 }),
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the path must not contain.
  v.regex(/^\/[^\s\u0000-\u001f\u007f]*$/, 'must be a path starting with / without spaces'),
);

const SitePath = v.pipe(
  clientText({ max: 200 }),
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the path must not contain.
  v.regex(/^\/(?!\/)[^\s\u0000-\u001f\u007f]*$/, 'must be a path on the site, starting with a single /'),
  v.check((path) => {
    try {
      return new URL(path, 'http://site.invalid').host === 'site.invalid';
    } catch {
      return false;
    }
  }, 'must be a path on the site'),
);

// Injected into the page as script parameters: keep them to the characters real ids use.
const AnalyticsId = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{0,100}$/, 'must be up to 100 letters, digits, hyphens or underscores'));

export const RobotsPatchSchema = v.strictObject({
  indexable: v.optional(v.boolean()),
  aiSearch: v.optional(v.boolean()),
  aiTraining: v.optional(v.boolean()),
  disallow: v.optional(v.pipe(v.array(RobotsPath), v.maxLength(100, 'must have at most 100 items'))),
  raw: v.optional(clientText({ max: 10_000 })),
});

export const AnalyticsPatchSchema = v.strictObject({
  clarityId: v.optional(AnalyticsId),
  gtmId: v.optional(AnalyticsId),
  metaPixelId: v.optional(AnalyticsId),
  posthogKey: v.optional(AnalyticsId),
});

export const ExtraUrlSchema = v.strictObject({
  path: SitePath,
  priority: v.optional(PrioritySchema, 0.5),
  changefreq: v.optional(ChangefreqSchema, 'weekly'),
});

export const SitemapPatchSchema = v.strictObject({
  extraUrls: v.optional(v.pipe(v.array(ExtraUrlSchema), v.maxLength(100, 'must have at most 100 items'))),
});

export const ProjectCreateSchema = named(
  'ProjectCreate',
  v.strictObject({
    name: Name,
    slug: v.optional(SlugSchema),
    locales: v.optional(Locales),
    defaultLocale: v.optional(LocaleSchema),
  }),
);

export const ProjectPatchSchema = named(
  'ProjectPatch',
  v.strictObject({
    name: v.optional(Name),
    locales: v.optional(Locales),
    defaultLocale: v.optional(LocaleSchema),
    robots: v.optional(RobotsPatchSchema),
    analytics: v.optional(AnalyticsPatchSchema),
    sitemap: v.optional(SitemapPatchSchema),
  }),
);

export const AddressSchema = named('AddressChange', v.strictObject({ slug: SlugSchema }));

export type ProjectCreate = v.InferOutput<typeof ProjectCreateSchema>;
export type ProjectPatch = v.InferOutput<typeof ProjectPatchSchema>;

const Locale = v.picklist(['es', 'en']);

export const RobotsSchema = named(
  'Robots',
  v.object({
    indexable: v.boolean(),
    aiSearch: v.boolean(),
    aiTraining: v.boolean(),
    disallow: v.array(v.string()),
    raw: v.string(),
  }),
);
export const AnalyticsSchema = named('Analytics', v.object({ clarityId: v.string(), gtmId: v.string(), metaPixelId: v.string(), posthogKey: v.string() }));
export const SitemapSchema = named(
  'Sitemap',
  v.object({
    extraUrls: v.array(v.object({ path: v.string(), priority: v.number(), changefreq: v.picklist(CHANGEFREQS) })),
  }),
);

export const ProjectSchema = named(
  'Project',
  v.object({
    id: v.string(),
    name: v.string(),
    slug: v.string(),
    locales: v.array(Locale),
    defaultLocale: Locale,
    robots: RobotsSchema,
    analytics: AnalyticsSchema,
    sitemap: SitemapSchema,
    llmsTxt: v.object({ text: v.string(), generatedAt: v.string() }),
    createdAt: v.string(),
    updatedAt: v.string(),
  }),
);

/** A project (site) as the API answers it. */
export type Project = v.InferOutput<typeof ProjectSchema>;
export type Robots = v.InferOutput<typeof RobotsSchema>;
export type Analytics = v.InferOutput<typeof AnalyticsSchema>;
export type ExtraUrl = v.InferOutput<typeof SitemapSchema>['extraUrls'][number];

export const ProjectListSchema = namedListPage('ProjectList', ProjectSchema);

export const ProjectDeletedSchema = named('ProjectDeleted', v.object({ projectId: v.string(), pagesDeleted: v.number() }));

export const ProjectListQuerySchema = listQuery();

// What the service writes in a `projects` row: the settings in full, under the same rules
// as a patch (decisions, D-721).
/** `projects.locales`: 1 or 2 languages, none twice. */
export const StoredLocalesSchema = Locales;
/** `projects.robots`: every setting present. */
export const StoredRobotsSchema = v.required(RobotsPatchSchema);
/** `projects.analytics`: every id present (empty when unset). */
export const StoredAnalyticsSchema = v.required(AnalyticsPatchSchema);
/** `projects.sitemap`: the extra URLs, each with its priority and changefreq. */
export const StoredSitemapSchema = v.required(SitemapPatchSchema);
/** A project's name and its slug (lowercase). */
// Older versions took names of any line: the one-line rule (D-1182) is for what comes in now.
export const StoredProjectFields = { name: clientText({ trim: true, min: 1, max: 80 }), slug: SlugSchema };
