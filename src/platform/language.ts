import type { Language } from '../text/language.js';

/**
 * Picks `es` or `en` from an Accept-Language header by quality, English by default.
 * Only the primary subtag matters (`es-MX` counts as `es`).
 */
export function preferredLanguage(header: string | null | undefined): Language {
  if (!header) return 'en';
  let best: Language = 'en';
  let bestQ = -1;
  for (const part of header.split(',')) {
    const [tag = '', ...params] = part.trim().toLowerCase().split(';');
    const primary = tag.trim().split('-')[0];
    if (primary !== 'es' && primary !== 'en' && primary !== '*') continue;
    let q = 1;
    for (const p of params) {
      const [k, v] = p.trim().split('=');
      if (k === 'q' && v !== undefined) q = Number(v);
    }
    if (!Number.isFinite(q) || q <= 0) continue;
    const lang: Language = primary === 'es' ? 'es' : 'en';
    if (q > bestQ) {
      best = lang;
      bestQ = q;
    }
  }
  return best;
}
