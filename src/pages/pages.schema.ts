import * as v from 'valibot';
import { named, namedListPage } from '../platform/named-schema.js';
import { listQuery } from '../platform/pagination.js';
import { LocaleSchema } from '../projects/locales.js';
import { CHANGEFREQS, ChangefreqSchema, PrioritySchema } from '../projects/projects.schema.js';
import { clientText, minChars } from '../platform/validation.js';
import { normalizePagePath } from './page-path.js';
import { TEXT_FIELDS } from './page-texts.js';

const Name = clientText({ trim: true, min: 1, max: 80, line: true });

/** A client's page path, checked and case-folded; the reason names the rule it breaks. */
export const PagePathSchema = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const result = normalizePagePath(dataset.value);
    if ('reason' in result) {
      addIssue({ message: result.reason });
      return NEVER;
    }
    return result.path;
  }),
);

const text = (max: number) => clientText({ max });
const langText = (max: number) => v.strictObject({ es: v.optional(text(max)), en: v.optional(text(max)) });

export const EditorialPatchSchema = v.strictObject({
  badge: v.optional(langText(80)),
  title: v.optional(langText(200)),
  titleAccent: v.optional(langText(200)),
  description: v.optional(langText(2000)),
});

export const SeoPatchSchema = v.strictObject({
  title: v.optional(langText(200)),
  description: v.optional(langText(1000)),
});

export const BodyPatchSchema = langText(100_000);

export const PageSitemapPatchSchema = v.strictObject({
  priority: v.optional(PrioritySchema),
  changefreq: v.optional(ChangefreqSchema),
  sitemapExclude: v.optional(v.boolean()),
});

const AgentId = v.pipe(v.string(), minChars(1, 'must be an agent id'));

export const PageCreateSchema = named(
  'PageCreate',
  v.strictObject({
    name: Name,
    kind: v.picklist(['agent', 'document'], 'must be agent or document'),
    path: PagePathSchema,
    agentId: v.optional(AgentId),
    defaultLocale: v.optional(LocaleSchema),
    editorial: v.optional(EditorialPatchSchema),
    seo: v.optional(SeoPatchSchema),
    sitemap: v.optional(PageSitemapPatchSchema),
    body: v.optional(BodyPatchSchema),
  }),
);

export const PagePatchSchema = named(
  'PagePatch',
  v.strictObject({
    name: v.optional(Name),
    path: v.optional(PagePathSchema),
    agentId: v.optional(AgentId),
    defaultLocale: v.optional(LocaleSchema),
    editorial: v.optional(EditorialPatchSchema),
    seo: v.optional(SeoPatchSchema),
    sitemap: v.optional(PageSitemapPatchSchema),
    body: v.optional(BodyPatchSchema),
  }),
);

export type PageCreate = v.InferOutput<typeof PageCreateSchema>;
export type PagePatch = v.InferOutput<typeof PagePatchSchema>;

const Locale = v.picklist(['es', 'en']);
const LangText = v.object({ es: v.string(), en: v.string() });

export const PageSchema = named(
  'Page',
  v.object({
    id: v.string(),
    name: v.string(),
    kind: v.picklist(['agent', 'document']),
    path: v.string(),
    status: v.picklist(['draft', 'published']),
    defaultLocale: Locale,
    editorial: v.object({ badge: LangText, title: LangText, titleAccent: LangText, description: LangText }),
    seo: v.object({ title: LangText, description: LangText }),
    sitemap: v.object({ priority: v.number(), changefreq: v.picklist(CHANGEFREQS), sitemapExclude: v.boolean() }),
    body: LangText,
    agentId: v.optional(v.string()),
    projectId: v.string(),
    createdAt: v.string(),
    updatedAt: v.string(),
    publishedAt: v.nullable(v.string()),
  }),
);

/** A page of a site as the API answers it. */
export type Page = v.InferOutput<typeof PageSchema>;
export type PageSitemap = Page['sitemap'];

export const PageListSchema = namedListPage('PageList', PageSchema);

export const PageDeletedSchema = named('PageDeleted', v.object({ pageId: v.string(), deleted: v.literal(true) }));

export const PageListQuerySchema = listQuery({
  status: v.optional(v.picklist(['draft', 'published'], 'must be draft or published')),
});

// What the service writes in a `pages` row (decisions, D-721). The texts follow the shape
// of a patch with both languages present; a machine translation may make a text longer
// than an owner may write it (the translator marks each line, or is the user's own), so
// stored texts may be up to `TRANSLATED_SLACK` times the limit.
const TRANSLATED_SLACK = 8;
const storedText = (max: number) => v.strictObject({ es: text(max * TRANSLATED_SLACK), en: text(max * TRANSLATED_SLACK) });

/** `pages.editorial`. */
export const StoredEditorialSchema = v.strictObject({
  badge: storedText(80),
  title: storedText(200),
  titleAccent: storedText(200),
  description: storedText(2000),
});
/** `pages.seo`. */
export const StoredSeoSchema = v.strictObject({ title: storedText(200), description: storedText(1000) });
/** `pages.body`. */
export const StoredBodySchema = storedText(100_000);
/** `pages.sitemap`: every setting present. */
export const StoredPageSitemapSchema = v.required(PageSitemapPatchSchema);
/** `pages.machine_texts`: the text paths (`seo.title.es`) the translator wrote, each once. */
export const StoredMachineTextsSchema = v.pipe(
  v.array(
    v.picklist(
      TEXT_FIELDS.flatMap((field) => [`${field}.es`, `${field}.en`]),
      'must be a page text path such as seo.title.es',
    ),
  ),
  v.check((paths) => new Set(paths).size === paths.length, 'must name each text once'),
);
/** A page's name and path (lowercase, normalised). */
// Older versions took names of any line: the one-line rule (D-1182) is for what comes in now.
export const StoredPageFields = { name: clientText({ trim: true, min: 1, max: 80 }), path: PagePathSchema };
