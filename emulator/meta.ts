import type { Kysely } from 'kysely';
import type { Database } from '../src/db/schema/index.js';

/** Emulator bookkeeping kept in the `meta` table so that a file database can restart. */
export interface MetaStore {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
}

export function metaStore(db: Kysely<Database>): MetaStore {
  return {
    async get<T>(key: string) {
      const row = await db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst();
      return row ? (JSON.parse(row.value) as T) : undefined;
    },
    async set(key, value) {
      const text = JSON.stringify(value);
      await db
        .insertInto('meta')
        .values({ key, value: text })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value: text }))
        .execute();
    },
  };
}
