import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** SHA-256 of a string or bytes, as lowercase hex. */
export function sha256Hex(input: string | Uint8Array): string {
  return createHash('sha256').update(input).digest('hex');
}

/** HMAC-SHA256, as base64url. */
export function hmacBase64Url(secret: string, input: string): string {
  return createHmac('sha256', secret).update(input).digest('base64url');
}

/**
 * Constant-time comparison of two strings, also across lengths: both sides are hashed
 * to 32 bytes first, so neither the content nor the length of the secret shows in the
 * time taken.
 */
export function safeEqual(a: string, b: string): boolean {
  const ah = createHash('sha256').update(a).digest();
  const bh = createHash('sha256').update(b).digest();
  return timingSafeEqual(ah, bh);
}

/** CRC32 (IEEE) of bytes as an unsigned integer: a check that stored bytes came back as written. */
export function crc32Bytes(bytes: Uint8Array): number {
  return crc32(bytes) >>> 0;
}

/** CRC32 (IEEE) of a UTF-8 string as an unsigned integer. */
export function crc32Of(input: string): number {
  return crc32(Buffer.from(input, 'utf8')) >>> 0;
}

/** Base62 (`0-9A-Za-z`) of a non-negative integer, left-padded with `0` to `width`. */
export function toBase62(value: number, width = 0): string {
  let n = Math.floor(value);
  let out = '';
  do {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out.padStart(width, '0');
}
