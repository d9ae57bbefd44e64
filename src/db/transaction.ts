import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema/index.js';

declare const opened: unique symbol;

/**
 * A transaction opened by `transaction()`: what it changes in memory-held caches is told
 * to them when it commits (`afterCommit`), never before and never on a rollback. A plain
 * kysely `Transaction` is not one, so a function that must record its invalidation on
 * the transaction that changed the data asks for a `Tx` and cannot be handed anything
 * else (decisions, D-960).
 */
export type Tx = Transaction<Database> & { readonly [opened]: true };

const pending = new WeakMap<Transaction<Database>, (() => void)[]>();

/**
 * Runs `work` in one transaction of `db` and, once it has committed, what it registered
 * with `afterCommit`, in order.
 */
export async function transaction<T>(db: Kysely<Database>, work: (trx: Tx) => Promise<T>): Promise<T> {
  const after: (() => void)[] = [];
  let open: Transaction<Database> | undefined;
  let result: T;
  try {
    result = await db.transaction().execute(async (trx) => {
      open = trx;
      pending.set(trx, after);
      return work(trx as Tx);
    });
  } finally {
    // Over either way: an effect registered from now on is refused.
    if (open) pending.delete(open);
  }
  for (const run of after) run();
  return result;
}

/**
 * Runs `effect` once `trx` has committed (dropped if it rolls back). Throws for a
 * transaction that is over: an effect registered late would run never, or too early.
 */
export function afterCommit(trx: Tx, effect: () => void): void {
  const after = pending.get(trx);
  if (!after) throw new Error('afterCommit: the transaction is over (register effects while it runs)');
  after.push(effect);
}
