import type { Kysely } from 'kysely';
import type { Database, Db } from '../src/db/schema/index.js';
import { transaction } from '../src/db/transaction.js';
import type { Coherence } from '../src/platform/coherence.js';

/** Emulator bookkeeping kept in the `meta` table so that a file database can restart. */
export interface MetaStore {
  get<T>(key: string): Promise<T | undefined>;
  /**
   * Writes a value. `announce`: other processes sharing the store hold it in memory (the
   * clock, the offline web) and reload it on their next request (decisions, D-203).
   */
  set(key: string, value: unknown, options?: { announce?: boolean }): Promise<void>;
  /** Writes a value unless one is there already; answers the one that is (processes starting together agree). */
  setOnce<T>(key: string, value: T): Promise<T>;
}

export function metaStore(db: Kysely<Database>, coherence: () => Coherence | undefined = () => undefined): MetaStore {
  const write = async (on: Db, key: string, text: string) => {
    await on
      .insertInto('meta')
      .values({ key, value: text })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: text }))
      .execute();
  };
  const get = async <T>(key: string) => {
    const row = await db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst();
    return row ? (JSON.parse(row.value) as T) : undefined;
  };
  return {
    get,
    async set(key, value, options = {}) {
      const text = JSON.stringify(value);
      const announce = options.announce ? coherence() : undefined;
      if (!announce) return write(db, key, text);
      await transaction(db, async (trx) => {
        await write(trx, key, text);
        await announce.changed(trx);
      });
    },
    async setOnce<T>(key: string, value: T) {
      await db
        .insertInto('meta')
        .values({ key, value: JSON.stringify(value) })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
      return (await get<T>(key)) as T;
    },
  };
}
