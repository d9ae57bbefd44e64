import { charCount } from '../platform/validation.js';

/** The longest slug a project may have (API.md, Limits). */
export const SLUG_MAX = 40;

/** Names the platform owns (API.md, Project): never granted to anyone. */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  'www',
  'api',
  'admin',
  'app',
  'console',
  'cdn',
  'widget',
  'docs',
  'mail',
  'cname',
  'status',
  'blog',
]);

const SLUG_SHAPE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * Checks a slug sent by a client: ASCII letters, digits and single hyphens, at most 40
 * characters, case-insensitive. Answers the stored (lowercase) slug or why it is refused.
 */
export function normalizeSlug(raw: string): { slug: string } | { reason: string } {
  if (raw.length === 0 || charCount(raw) > SLUG_MAX) return { reason: `must be 1 to ${SLUG_MAX} characters` };
  // Lowercase only after checking for ASCII: some non-ASCII letters lowercase into ASCII ones.
  if (!/^[A-Za-z0-9-]+$/.test(raw)) return { reason: 'must be letters a-z, digits and hyphens' };
  const slug = raw.toLowerCase();
  if (!SLUG_SHAPE.test(slug)) return { reason: 'must not start or end with a hyphen or hold two in a row' };
  return { slug };
}

/**
 * Derives a slug from a project name (CONTRACT, Projects): strip accents, lowercase,
 * every run of anything else becomes one hyphen, trim hyphens, cut to 40 at the last
 * hyphen that fits (a hard cut when the first word is longer). May answer `''`.
 */
export function deriveSlug(name: string): string {
  const words = name
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return cutAtHyphen(words, SLUG_MAX);
}

function cutAtHyphen(slug: string, max: number): string {
  if (slug.length <= max) return slug;
  if (slug[max] === '-') return slug.slice(0, max);
  const cut = slug.lastIndexOf('-', max);
  return cut > 0 ? slug.slice(0, cut) : slug.slice(0, max);
}

/**
 * Neighbours of a taken slug, in the order they are offered: `<base>-2`, `<base>-3`...
 * (decisions, D-032)
 * The base is shortened (at a hyphen when it can) so that every candidate fits.
 */
export function slugCandidates(base: string, from: number, count: number): string[] {
  const out: string[] = [];
  for (let n = from; n < from + count; n++) {
    const suffix = `-${n}`;
    const stem = cutAtHyphen(base, SLUG_MAX - suffix.length).replace(/-+$/, '');
    const candidate = `${stem}${suffix}`;
    if (!RESERVED_SLUGS.has(candidate)) out.push(candidate);
  }
  return out;
}
