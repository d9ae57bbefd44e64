import type { Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema/index.js';
import { EmulatedClock } from '../../src/platform/clock.js';
import { IdempotencyStore } from '../../src/platform/idempotency.js';

const open: Store[] = [];
afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
});

/** A pause of the first statement of one kind, opened by the test: the moment another request of the same process looks at the claim. */
function pause() {
  let first = true;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let reached!: () => void;
  const waiting = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const hold = (): Promise<void> => {
    if (!first) return Promise.resolve();
    first = false;
    reached();
    return opened;
  };
  return { open, waiting, hold };
}

/**
 * `db` whose statements built from `root` (`insertInto`, `updateTable`) wait for `hold()`
 * before they run (`when: 'before'`) or before their result returns (`'after'`).
 */
function paused(db: Kysely<Database>, root: string, when: 'before' | 'after', hold: () => Promise<void>): Kysely<Database> {
  const wrap = (builder: object): object =>
    new Proxy(builder, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        if (name === 'execute' || name === 'executeTakeFirst') {
          return async (...args: unknown[]) => {
            if (when === 'before') await hold();
            const result = await value.apply(target, args);
            if (when === 'after') await hold();
            return result;
          };
        }
        return (...args: unknown[]) => {
          const next = value.apply(target, args);
          return next && typeof next === 'object' && !(next instanceof Promise) ? wrap(next) : next;
        };
      },
    });
  return new Proxy(db, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (name !== root || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return (...args: unknown[]) => wrap(value.apply(target, args));
    },
  });
}

async function store() {
  const s = await openStore({ kind: 'memory' });
  open.push(s);
  return s.db;
}

const clock = () => new EmulatedClock({ frozenAt: Date.parse('2026-01-01T00:00:00Z') });
/** A process sharing the store with others that are all alive. */
const owner = { id: 'ins_one', alive: async () => true };

describe('an idempotency claim of this process while processes share the store (D-1040)', () => {
  it('is not taken over while its answer is being written', async () => {
    const db = await store();
    const gate = pause();
    const writer = new IdempotencyStore(paused(db, 'updateTable', 'before', gate.hold), clock(), owner);
    expect(await writer.begin('ws', 'key', 'k', 'print')).toEqual({ kind: 'new' });
    const completing = writer.complete('key', 'k', 201, { 'content-type': 'application/json' }, '{"id":"agt_1"}');
    await gate.waiting;
    // The answer is not written yet: a second request with the key must wait, not run again.
    const reader = new IdempotencyStore(db, clock(), owner);
    expect((await writer.begin('ws', 'key', 'k', 'print')).kind).toBe('running');
    gate.open();
    await completing;
    expect(await reader.begin('ws', 'key', 'k', 'print')).toMatchObject({ kind: 'replay', status: 201, body: '{"id":"agt_1"}' });
  });

  it('is not taken over between its insert and the return of the request that made it', async () => {
    const db = await store();
    const gate = pause();
    const idempotency = new IdempotencyStore(paused(db, 'insertInto', 'after', gate.hold), clock(), owner);
    const first = idempotency.begin('ws', 'key', 'k', 'print');
    await gate.waiting;
    // The first claim is in the store; its request has not been told yet.
    const second = await idempotency.begin('ws', 'key', 'k', 'print');
    gate.open();
    expect(await first).toEqual({ kind: 'new' });
    expect(second.kind).toBe('running');
  });

  it('is taken over when no request of this process holds it any more (the store lost the answer)', async () => {
    const db = await store();
    const idempotency = new IdempotencyStore(db, clock(), owner);
    expect((await idempotency.begin('ws', 'key', 'k', 'print')).kind).toBe('new');
    await idempotency.complete('key', 'k', 201, { 'content-type': 'application/json' }, '{}');
    await db.updateTable('idempotency').set({ state: 'running:ins_one', status: null, headers: null, body: null }).execute();
    expect((await idempotency.begin('ws', 'key', 'k', 'print')).kind).toBe('new');
  });
});
