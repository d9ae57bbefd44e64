import type { Clock } from '../platform/clock.js';
import { hmacBase64Url, safeEqual } from '../platform/crypto.js';
import { MINUTE, iso } from '../platform/time.js';

/** How long a signed file URL works (API.md: about 15 minutes). */
export const URL_LIFETIME_MS = 15 * MINUTE;

export interface SignedUrl {
  url: string;
  urlExpiresAt: string;
}

export type UrlVerdict = { ok: true; expiresAtMs: number } | { ok: false; reason: 'expired' | 'invalid' };

/**
 * Signs and checks `GET /files/{assetId}?expires=&signature=` URLs (decisions, D-059): HMAC-SHA256 of the
 * asset id and the expiry (epoch seconds) with the emulator's secret, on the emulated
 * clock. Nothing is stored: a URL is valid because its signature says so.
 */
export class UrlSigner {
  constructor(
    private readonly secret: string,
    private readonly clock: Clock,
  ) {}

  #signature(assetId: string, expires: number): string {
    return hmacBase64Url(this.secret, `files\n${assetId}\n${expires}`);
  }

  /** A fresh URL under `origin` (`http://host:port`), valid for 15 minutes from now. */
  sign(assetId: string, origin: string): SignedUrl {
    const expires = Math.floor((this.clock.now() + URL_LIFETIME_MS) / 1000);
    const query = `expires=${expires}&signature=${this.#signature(assetId, expires)}`;
    return { url: `${origin}/files/${encodeURIComponent(assetId)}?${query}`, urlExpiresAt: iso(expires * 1000) };
  }

  /** Whether a URL's `expires` and `signature` are genuine and not yet past. */
  verify(assetId: string, expires: string | undefined, signature: string | undefined): UrlVerdict {
    if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return { ok: false, reason: 'invalid' };
    const seconds = Number(expires);
    if (!safeEqual(signature, this.#signature(assetId, seconds))) return { ok: false, reason: 'invalid' };
    const expiresAtMs = seconds * 1000;
    return this.clock.now() >= expiresAtMs ? { ok: false, reason: 'expired' } : { ok: true, expiresAtMs };
  }
}
