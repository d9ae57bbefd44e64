/**
 * The Content-Security-Policy of the answers of a hosted site. The page's script and
 * stylesheet are files the site serves (`/_site/widget.js`, `/_site/theme.css`); the
 * one inline thing is a page's `:root` rule of theme variables, allowed by the hash of
 * its exact text (D-871), so an injected `<script>`, `<style>` or `style` attribute
 * would not run even if it got past the Markdown sanitiser. Images: the brand files
 * and assets come from signed `/files/` URLs on the site's own host, and a Markdown
 * body may show any https image. The emulator has no registered origins for a site
 * (site keys are only named in API.md), so only the site itself may frame its pages.
 */
export function siteCsp(styleSources: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    ["style-src 'self'", ...styleSources].join(' '),
    "img-src 'self' https:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}

/** The policy of every answer of a site that has no inline style (text files, chat, JSON problems). */
export const SITE_CSP = siteCsp();

/** Headers every answer of a hosted site carries: pages, text files, chat and the 404. */
export const SITE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': SITE_CSP,
  // For browsers that predate `frame-ancestors`; says the same thing.
  'x-frame-options': 'SAMEORIGIN',
  'x-content-type-options': 'nosniff',
  // Links out of a site tell the other site which site sent the visitor, never the page.
  'referrer-policy': 'strict-origin-when-cross-origin',
};
