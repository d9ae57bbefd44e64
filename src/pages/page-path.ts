import { charCount } from '../platform/validation.js';

/** Longest page path (CONTRACT, Pages: the bound of 200 is the path's length). */
export const PATH_MAX = 200;
export const SEGMENTS_MAX = 4;

/** First segments the platform keeps for itself, with their whole subtree (API.md, Page). */
export const RESERVED_SEGMENTS: ReadonlySet<string> = new Set([
  'admin',
  'api',
  'app',
  'cdn',
  'console',
  'docs',
  'embed',
  'mail',
  'status',
  'storage',
  'well-known',
  'widget',
  'www',
]);

const SEGMENT = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * Checks a page path sent by a client and answers it case-folded, or why it is refused:
 * `/`, or 1 to 4 segments of letters, digits and single hyphens, at most 200
 * characters, never percent-encoded, never a dot segment.
 */
export function normalizePagePath(raw: string): { path: string } | { reason: string } {
  if (raw === '/') return { path: '/' };
  if (charCount(raw) > PATH_MAX) return { reason: `must be at most ${PATH_MAX} characters` };
  if (!raw.startsWith('/')) return { reason: 'must start with /' };
  if (raw.includes('%')) return { reason: 'must not be percent-encoded' };
  const segments = raw.slice(1).split('/');
  if (segments.some((s) => s === '.' || s === '..')) return { reason: 'must not contain dot segments' };
  if (segments.some((s) => s === '')) return { reason: 'must not hold empty segments or end with /' };
  if (segments.length > SEGMENTS_MAX) return { reason: `must have at most ${SEGMENTS_MAX} segments` };
  // Fold case only after checking for ASCII: some non-ASCII letters lowercase into ASCII ones.
  if (segments.some((s) => !/^[A-Za-z0-9-]+$/.test(s))) return { reason: 'segments must be letters a-z, digits and hyphens' };
  const path = raw.toLowerCase();
  if (
    path
      .slice(1)
      .split('/')
      .some((s) => !SEGMENT.test(s))
  )
    return { reason: 'segments must not start or end with a hyphen or hold two in a row' };
  return { path };
}

/**
 * A requested path without its trailing slashes (`/about/` is `/about`; `/` stays).
 * A loop, not `/\/+$/`: that pattern retries at every slash of a long run.
 */
export function trimTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 0x2f) end--;
  return path.slice(0, end);
}

/** True when the platform reserves the path's subtree. */
export function isReservedPath(path: string): boolean {
  return RESERVED_SEGMENTS.has(path.split('/')[1] ?? '');
}
