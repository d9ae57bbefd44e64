import { createHash, randomBytes } from 'node:crypto';
import { BASE62 } from './crypto.js';
import type { Clock } from './clock.js';

/** Prefixes of CONTRACT (Conventions) plus the emulator's internal ones. */
export type IdPrefix =
  | 'ws' | 'key' | 'agt' | 'prj' | 'pg' | 'src' | 'ast' | 'cnv' | 'req'
  | 'job' | 'chk' | 'msg';

export interface IdState {
  time: number;
  /** The 80-bit random part of the last id, as a decimal string. */
  random: string;
  draws: number;
}

/** Generator of prefixed ids and secrets; seeded for determinism, random otherwise. */
export interface IdGenerator {
  /** A new id, sortable by creation: `prj_01jd...`. */
  next(prefix: IdPrefix): string;
  /** `length` base62 characters (API key secrets, signing secrets). */
  secret(length: number): string;
  snapshot(): IdState;
  restore(state: IdState): void;
}

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const RANDOM_BITS = 80n;
const RANDOM_MAX = (1n << RANDOM_BITS) - 1n;

function encodeBase32(value: bigint, length: number): string {
  let out = '';
  let n = value;
  for (let i = 0; i < length; i++) {
    out = CROCKFORD[Number(n & 31n)] + out;
    n >>= 5n;
  }
  return out;
}

/**
 * Builds the id generator. Ids are ULID-shaped (48-bit emulated time, 80-bit random,
 * lowercase Crockford base32) and monotonic: within one millisecond the random part
 * is incremented, so lexical order is creation order even under a frozen clock.
 * With a `seed`, every random byte comes from SHA-256 of the seed and a draw counter.
 */
export function createIdGenerator(options: { clock: Clock; seed?: string | number }): IdGenerator {
  const { clock } = options;
  const seed = options.seed === undefined ? undefined : String(options.seed);
  let lastTime = -1;
  let lastRandom = 0n;
  let draws = 0;

  const bytes = (n: number): Buffer => {
    if (seed === undefined) return randomBytes(n);
    const out: Buffer[] = [];
    let have = 0;
    while (have < n) {
      const block = createHash('sha256').update(`${seed}:${draws++}`).digest();
      out.push(block);
      have += block.length;
    }
    return Buffer.concat(out).subarray(0, n);
  };

  return {
    next(prefix) {
      const now = Math.max(clock.now(), lastTime);
      if (now === lastTime && lastRandom < RANDOM_MAX) {
        lastRandom += 1n;
      } else {
        lastTime = now;
        // Keep headroom so that increments within one millisecond never overflow.
        lastRandom = BigInt(`0x${bytes(10).toString('hex')}`) >> 1n;
      }
      return `${prefix}_${encodeBase32(BigInt(lastTime), 10)}${encodeBase32(lastRandom, 16)}`;
    },
    secret(length) {
      // Rejection sampling keeps base62 uniform.
      let out = '';
      while (out.length < length) {
        for (const b of bytes(length * 2)) {
          if (b < 248 && out.length < length) out += BASE62[b % 62];
        }
      }
      return out;
    },
    snapshot() {
      return { time: lastTime, random: lastRandom.toString(), draws };
    },
    restore(state) {
      lastTime = state.time;
      lastRandom = BigInt(state.random);
      draws = state.draws;
    },
  };
}
