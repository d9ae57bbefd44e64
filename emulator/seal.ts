import { createCipheriv, createDecipheriv, createHash, createHmac } from 'node:crypto';

const PREFIX = 'sealed:';

/** The emulator secret of a seeded emulator with a new store (a `--db` file keeps its own). */
export function seedSecret(seed: string): string {
  return createHash('sha256').update(`svc-emulator:${seed}:secret`).digest('hex');
}

/**
 * Seals values that must not appear in a response (key hashes in a state export) with
 * AES-256-GCM under a key derived from the emulator secret. The IV is derived from the
 * value (synthetic IV), so the same state always exports to the same bytes (decisions, D-024).
 */
export function createSealer(secret: string) {
  const key = createHash('sha256').update(`svc-emulator:state-seal:${secret}`).digest();
  return {
    seal(value: string): string {
      const iv = createHmac('sha256', key).update(value).digest().subarray(0, 12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
      return PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
    },
    /** The sealed value, or undefined when another secret sealed it (or it was altered). */
    open(sealed: string): string | undefined {
      if (!sealed.startsWith(PREFIX)) return undefined;
      const bytes = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
      if (bytes.length < 28) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
        decipher.setAuthTag(bytes.subarray(bytes.length - 16));
        return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
