import * as v from 'valibot';
import { named } from '../platform/named-schema.js';
import { clientText } from '../platform/validation.js';

export const BRAND_SLOTS = ['logo', 'logo-dark', 'favicon'] as const;
export type BrandSlot = (typeof BRAND_SLOTS)[number];

export const SlotParamSchema = v.object({ slot: v.picklist(BRAND_SLOTS, 'must be logo, logo-dark or favicon') });

const LINK_RULE = 'must be an http or https URL, a mailto: or tel: link, a path starting with / or a #fragment';

const SITE = 'http://site.invalid';

/**
 * Where a brand link may point: the web, mail, phone, this site, or this page. A path
 * is judged the way a browser reads it (the WHATWG URL parser): `/\evil.example/` is
 * `//evil.example/` to a browser, so a path must resolve to the site's own origin.
 */
export function isLinkTarget(href: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a link with a control character is refused; matching them is the point.
  if (/[\u0000-\u0020\u007f]/.test(href)) return false;
  if (href.startsWith('#')) return true;
  if (href.startsWith('/')) return URL.canParse(href, SITE) && new URL(href, SITE).origin === SITE;
  if (!URL.canParse(href)) return false;
  return ['http:', 'https:', 'mailto:', 'tel:'].includes(new URL(href).protocol);
}

const Href = v.pipe(clientText({ min: 1, max: 2048, minMessage: LINK_RULE, message: 'must be at most 2048 characters' }), v.check(isLinkTarget, LINK_RULE));
const labelled = (text: ReturnType<typeof clientText>) =>
  v.strictObject({
    label: v.pipe(
      v.strictObject({ es: text, en: text }),
      v.check((l) => l.es !== '' || l.en !== '', 'needs text in at least one language'),
    ),
    href: Href,
  });
const Link = labelled(clientText({ trim: true, max: 80, line: true }));
// Older versions took labels of any line: the one-line rule (D-1182) is for what comes in now.
const StoredLink = labelled(clientText({ trim: true, max: 80 }));
const FooterText = clientText({ max: 500 });

/**
 * `PATCH /v1/projects/{projectId}/brand`: partial; arrays and the CTA are replaced
 * whole. (An array where an object belongs is refused for every body by `parseOrThrow`.)
 */
export const BrandPatchSchema = named(
  'BrandPatch',
  v.strictObject({
    navbar: v.optional(
      v.strictObject({
        links: v.optional(v.pipe(v.array(Link), v.maxLength(8, 'at most 8 links'))),
        cta: v.optional(v.nullable(Link)),
      }),
    ),
    footer: v.optional(
      v.strictObject({
        text: v.optional(v.strictObject({ es: v.optional(FooterText), en: v.optional(FooterText) })),
        links: v.optional(v.pipe(v.array(Link), v.maxLength(12, 'at most 12 links'))),
      }),
    ),
  }),
);

export type BrandPatch = v.InferOutput<typeof BrandPatchSchema>;

/** `PUT /v1/projects/{projectId}/brand/{slot}` (multipart). */
export const BrandFileUploadSchema = named('BrandFileUpload', v.strictObject({ file: v.instance(File, 'must be a file') }));

const LocalizedOut = v.object({ es: v.string(), en: v.string() });
const LinkOut = v.object({ label: LocalizedOut, href: v.string() });

export const BrandFileSchema = named(
  'BrandFile',
  v.nullable(v.object({ contentType: v.string(), byteSize: v.number(), url: v.string(), urlExpiresAt: v.string() })),
);

export const BrandSchema = named(
  'Brand',
  v.object({
    logo: BrandFileSchema,
    logoDark: BrandFileSchema,
    favicon: BrandFileSchema,
    navbar: v.object({ links: v.array(LinkOut), cta: v.nullable(LinkOut) }),
    footer: v.object({ text: LocalizedOut, links: v.array(LinkOut) }),
    /** null until the brand is first changed. */
    updatedAt: v.nullable(v.string()),
  }),
);

export type Brand = v.InferOutput<typeof BrandSchema>;
export type BrandLink = v.InferOutput<typeof LinkOut>;

/** `brands.navbar` as the service writes it: the links and the CTA (null when none), under the patch's rules. */
export const StoredNavbarSchema = v.strictObject({ links: v.pipe(v.array(StoredLink), v.maxLength(8, 'at most 8 links')), cta: v.nullable(StoredLink) });
/** `brands.footer` as the service writes it. */
export const StoredFooterSchema = v.strictObject({
  text: v.strictObject({ es: FooterText, en: FooterText }),
  links: v.pipe(v.array(StoredLink), v.maxLength(12, 'at most 12 links')),
});
