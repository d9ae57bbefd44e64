import { crc32Of, sha256Hex, toBase62 } from '../platform/crypto.js';

export type KeyEnv = 'live' | 'test';

const KEY_SHAPE = /^svc_(live|test)_([0-9A-Za-z]{32})_([0-9A-Za-z]{6})$/;

/** The checksum of CONTRACT: CRC32 (IEEE) of `svc_<env>_<secret>`, base62, 6 chars. */
export function keyChecksum(body: string): string {
  return toBase62(crc32Of(body), 6);
}

/** Builds the full key `svc_<env>_<secret>_<checksum>` from a 32-char base62 secret. */
export function formatApiKey(env: KeyEnv, secret: string): string {
  const body = `svc_${env}_${secret}`;
  return `${body}_${keyChecksum(body)}`;
}

/** The console prefix: the first 12 characters; it identifies but cannot authenticate. */
export function keyPrefix(key: string): string {
  return key.slice(0, 12);
}

/** True when the key has the right shape and checksum; no store lookup needed. */
export function isWellFormedKey(key: string): boolean {
  const m = KEY_SHAPE.exec(key);
  return m !== null && keyChecksum(`svc_${m[1]}_${m[2]}`) === m[3];
}

/** The only form in which a key is stored. */
export function hashApiKey(key: string): string {
  return sha256Hex(key);
}
