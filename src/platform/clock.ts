/** The time source of every service: epoch milliseconds. */
export interface Clock {
  now(): number;
  /** True while the clock stands still (a seed froze it): no window ends by waiting. */
  readonly frozen?: boolean;
}

export interface ClockState {
  frozen: boolean;
  /** Frozen: the current instant. Running: the offset added to real time. */
  value: number;
}

type Listener = (now: number) => void;

/**
 * The emulated clock. It follows real time plus any advance, or, when frozen (a seeded
 * emulator), stands still until told to move. Time only moves forward; listeners run
 * after each move so that whatever came due (re-crawls) runs.
 */
/**
 * The latest instant the emulated clock may reach: the year 9000, so that a running clock
 * has a thousand years before a timestamp needs a fifth year digit, and every instant it
 * shows is an RFC 3339 timestamp a state document can carry (decisions, D-723, D-1080).
 */
export const LATEST_INSTANT = Date.UTC(9000, 0, 1);

export class EmulatedClock implements Clock {
  #frozen: boolean;
  #value: number;
  readonly #realNow: () => number;
  readonly #listeners = new Set<Listener>();
  #last = 0;

  constructor(options: { frozenAt?: number; offsetMs?: number; realNow?: () => number } = {}) {
    // Read at each tick rather than captured: the process's time as a test's fake timers
    // set it (vi.setSystemTime), whether they were installed before or after (D-1230).
    this.#realNow = options.realNow ?? (() => Date.now());
    this.#frozen = options.frozenAt !== undefined;
    this.#value = options.frozenAt ?? options.offsetMs ?? 0;
    // Ids and state documents carry whole milliseconds (D-723, D-1092).
    if (!Number.isInteger(this.#value)) throw new RangeError('the clock starts at whole milliseconds');
  }

  get frozen(): boolean {
    return this.#frozen;
  }

  now(): number {
    const t = this.#frozen ? this.#value : this.#realNow() + this.#value;
    // Real time can step back (NTP); the emulated clock never does.
    this.#last = Math.max(this.#last, t);
    return this.#last;
  }

  /** Moves the clock forward by `ms` (whole, >= 0, up to `LATEST_INSTANT`) and returns the new instant. */
  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advance must be a non-negative number of milliseconds');
    // A fraction would put it in every id and timestamp after it (D-1092).
    if (!Number.isInteger(ms)) throw new RangeError('the clock moves by whole milliseconds');
    // Refused before anything moves: a clock past every date the service can write
    // would fail every later request (D-1080).
    if (this.now() + ms > LATEST_INSTANT) throw new RangeError('the clock cannot pass the year 9000');
    this.#value += ms;
    return this.#moved();
  }

  /** Moves the clock to `instant`, which may not be earlier than now. */
  set(instant: number): number {
    const current = this.now();
    if (!Number.isFinite(instant) || instant < current) throw new RangeError('the clock only moves forward');
    return this.advance(instant - current);
  }

  onChange(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  snapshot(): ClockState {
    return { frozen: this.#frozen, value: this.#frozen ? this.now() : this.#value };
  }

  /** Restores a snapshot; unlike `set`, this may move time backwards (reset, import). */
  restore(state: ClockState): void {
    this.#frozen = state.frozen;
    this.#value = state.value;
    this.#last = 0;
    this.#moved();
  }

  #moved(): number {
    const now = this.now();
    for (const listener of this.#listeners) listener(now);
    return now;
  }
}
