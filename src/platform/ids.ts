import { createHash, randomBytes } from 'node:crypto';
import { BASE62 } from './crypto.js';
import type { Clock } from './clock.js';

/** Prefixes of CONTRACT (Conventions) plus the emulator's internal ones. */
export type IdPrefix = 'ws' | 'key' | 'agt' | 'prj' | 'pg' | 'src' | 'ast' | 'cnv' | 'req' | 'job' | 'chk' | 'msg' | 'flt';

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
  /**
   * An independent generator on the same clock (and seed, with `stream` mixed in), for
   * ids that are not state, such as request ids: using them never shifts resource ids.
   */
  fork(stream: string): IdGenerator;
}

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const HALF = 2 ** 40;

/** `length` base32 digits of a non-negative integer below 2^53 (number maths: ids are minted per request). */
function encodeBase32(value: number, length: number): string {
  let out = '';
  let n = value;
  for (let i = 0; i < length; i++) {
    out = CROCKFORD[n % 32] + out;
    n = Math.floor(n / 32);
  }
  return out;
}

const DIGIT = new Map([...CROCKFORD].map((c, i) => [c, i]));
const GENERATED = /^[a-z]+_([0-9a-hjkmnp-tv-z]{26})$/;

/**
 * The generator state that drew `id` (as `snapshot()` would give right after it, with no
 * draws), or undefined for a text that is no generated id (a chunk's derived id, a
 * fixture's name). A stream restored behind an id it drew would draw it again (D-1198).
 */
export function idStateOf(id: string): IdState | undefined {
  const body = GENERATED.exec(id)?.[1];
  if (!body) return undefined;
  const read = (from: number, to: number) => [...body.slice(from, to)].reduce((n, c) => n * 32 + DIGIT.get(c)!, 0);
  return { time: read(0, 10), random: (BigInt(read(10, 18)) * BigInt(HALF) + BigInt(read(18, 26))).toString(), draws: 0 };
}

/** The stream further on of two: the later last id, and the more random draws spent. */
export function laterIds(a: IdState, b: IdState): IdState {
  const ahead = a.time !== b.time ? a.time > b.time : BigInt(a.random) >= BigInt(b.random);
  const last = ahead ? a : b;
  return { time: last.time, random: last.random, draws: Math.max(a.draws, b.draws) };
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
  // The 80-bit random part as two 40-bit halves.
  let hi = 0;
  let lo = 0;
  let draws = 0;
  let stem = '';

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
      if (now === lastTime && (lo < HALF - 1 || hi < HALF / 2 - 1)) {
        lo += 1;
        if (lo === HALF) {
          lo = 0;
          hi += 1;
          stem = '';
        }
      } else {
        lastTime = now;
        const b = bytes(10);
        // The top bit stays clear: headroom so increments within one millisecond never overflow.
        hi = b.readUIntBE(0, 5) % (HALF / 2);
        lo = b.readUIntBE(5, 5);
        stem = '';
      }
      // Within one millisecond only the low half changes: encode the rest once.
      stem ||= encodeBase32(lastTime, 10) + encodeBase32(hi, 8);
      return `${prefix}_${stem}${encodeBase32(lo, 8)}`;
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
      return { time: lastTime, random: (BigInt(hi) * BigInt(HALF) + BigInt(lo)).toString(), draws };
    },
    restore(state) {
      const random = BigInt(state.random);
      lastTime = state.time;
      hi = Number(random / BigInt(HALF));
      lo = Number(random % BigInt(HALF));
      draws = state.draws;
      stem = '';
    },
    fork(stream) {
      return createIdGenerator({ clock, ...(seed !== undefined && { seed: `${seed}/${stream}` }) });
    },
  };
}
