import type { IdGenerator, IdPrefix, IdState } from '../../src/platform/ids.js';

/**
 * One call on an id generator: which generator (`''` the root, else the fork's label),
 * what was asked (`next` with a prefix, `secret` with a length) and what it answered.
 */
export type IdCall = [stream: string, op: 'next', prefix: IdPrefix, out: string] | [stream: string, op: 'secret', length: number, out: string];

/**
 * An id generator the emulator can replay on (D-185). It knows its forks by label (the
 * stream, `#2` on for a second fork of the same stream; forks are made in the same order
 * by the same constructors, so labels match between runs) and, while recording, notes
 * every call made on it and on its forks.
 */
export class IdTap {
  readonly ids: IdGenerator;
  readonly #forks = new Map<string, IdGenerator>();
  #calls: IdCall[] | undefined;

  constructor(root: IdGenerator) {
    this.ids = this.#wrap(root, '');
  }

  /** Notes every call from now on (what loading fixtures asks of the generators). */
  record(): void {
    this.#calls = [];
  }

  /** The calls noted since `record()`, and recording off. */
  take(): IdCall[] {
    const calls = this.#calls ?? [];
    this.#calls = undefined;
    return calls;
  }

  /**
   * Makes the same calls on this run's generators, in order, so they end where a load
   * would have left them; answers each recorded output with this run's.
   */
  replay(calls: readonly IdCall[]): Map<string, string> {
    const outputs = new Map<string, string>();
    for (const [stream, op, arg, out] of calls) {
      const ids = stream === '' ? this.ids : this.#forks.get(stream);
      // A fork the load made itself would be made afresh after an import: no replay can match it.
      if (!ids) throw new Error(`id stream "${stream}" was forked while loading; a replay cannot reach it`);
      outputs.set(out, op === 'next' ? ids.next(arg as IdPrefix) : ids.secret(arg as number));
    }
    return outputs;
  }

  /** Where every generator stands (the root under `''`). */
  snapshots(): Record<string, IdState> {
    return Object.fromEntries([['', this.ids.snapshot()], ...[...this.#forks].map(([label, ids]) => [label, ids.snapshot()] as const)]);
  }

  #wrap(inner: IdGenerator, stream: string): IdGenerator {
    const tap = this;
    return {
      next(prefix) {
        const id = inner.next(prefix);
        tap.#calls?.push([stream, 'next', prefix, id]);
        return id;
      },
      secret(length) {
        const secret = inner.secret(length);
        tap.#calls?.push([stream, 'secret', length, secret]);
        return secret;
      },
      snapshot: () => inner.snapshot(),
      restore: (state) => inner.restore(state),
      fork(name) {
        const base = stream === '' ? name : `${stream}/${name}`;
        let label = base;
        for (let n = 2; tap.#forks.has(label); n++) label = `${base}#${n}`;
        const forked = tap.#wrap(inner.fork(name), label);
        tap.#forks.set(label, forked);
        return forked;
      },
    };
  }
}
