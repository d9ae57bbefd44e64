import * as v from 'valibot';
import { sql, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { hmacBase64Url, safeEqual } from './crypto.js';
import { ServiceError } from './service-error.js';
import { integerText } from './validation.js';

/** One page of a list: what every list route answers. */
export interface ListPage<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** Where a list page starts and how long it is (`limit`, `after` or `before`). */
export interface ListParams {
  limit: number;
  after?: string | undefined;
  before?: string | undefined;
}

/** Query entries every list takes: `limit` (1..100, default 50), `after`, `before`. */
export const ListQueryEntries = {
  limit: v.optional(integerText(1, 100, 'How many items to answer'), '50'),
  after: v.optional(v.pipe(v.string(), v.minLength(1, 'malformed cursor'), v.description('A `nextCursor`: the items after it'))),
  before: v.optional(
    v.pipe(v.string(), v.minLength(1, 'malformed cursor'), v.description('A `nextCursor` of a backward walk: the items just before it, still newest first')),
  ),
};

/** The query schema of a list: the page entries plus the list's own filters. */
export function listQuery<E extends v.ObjectEntries = Record<never, never>>(extra: E = {} as E) {
  return v.object({ ...ListQueryEntries, ...extra });
}

export const ListQuerySchema = listQuery();

interface Position {
  createdAt: string;
  id: string;
}

/**
 * Opaque list cursors, signed with the emulator's secret and bound to one list of one
 * workspace, so a cursor can neither be forged nor carried into another workspace.
 */
export class Cursors {
  readonly #secret: string;

  constructor(secret: string) {
    this.#secret = secret;
  }

  encode(scope: string, position: Position): string {
    const payload = Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
    return `${payload}.${hmacBase64Url(this.#secret, `${scope}\n${payload}`).slice(0, 22)}`;
  }

  decode(scope: string, cursor: string, field: string): Position {
    const [payload = '', signature = '', rest] = cursor.split('.');
    const expected = hmacBase64Url(this.#secret, `${scope}\n${payload}`).slice(0, 22);
    if (rest === undefined && payload && safeEqual(signature, expected)) {
      try {
        const [createdAt, id] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
        if (typeof createdAt === 'string' && typeof id === 'string') return { createdAt, id };
      } catch {
        // fall through to the one answer for every bad cursor
      }
    }
    throw new ServiceError('svc.request.validation_failed', { errors: [{ field, reason: 'malformed cursor' }] });
  }
}

/**
 * Runs a list query newest first (`created_at` desc, then `id` desc) with cursor
 * pagination. `query` must select from a table with `created_at` and `id` columns and
 * carry its own filters (workspace first).
 */
export async function paginate<DB, TB extends keyof DB, R extends { created_at: string; id: string }, T>(
  cursors: Cursors,
  scope: string,
  params: ListParams,
  query: SelectQueryBuilder<DB, TB, R>,
  map: (row: R) => T,
  options: { table?: string } = {},
): Promise<ListPage<T>> {
  if (params.after !== undefined && params.before !== undefined) {
    throw new ServiceError('svc.request.validation_failed', { errors: [{ field: 'before', reason: 'send either after or before, not both' }] });
  }
  const col = (name: string) => sql.ref<string>(options.table ? `${options.table}.${name}` : name);
  const backwards = params.before !== undefined;
  const raw = params.before ?? params.after;
  const position = raw === undefined ? undefined : cursors.decode(scope, raw, backwards ? 'before' : 'after');
  let q = query;
  if (position) {
    // One row-value comparison, not `created_at < ? or (created_at = ? and id < ?)`: SQLite
    // and PostgreSQL seek the (…, created_at, id) index to it, where the `or` made them read
    // every entry before the cursor, so a walk of n items cost n²/limit (D-1208).
    const op = sql.raw(backwards ? '>' : '<');
    q = q.where(sql<SqlBool>`(${col('created_at')}, ${col('id')}) ${op} (${position.createdAt}, ${position.id})`);
  }
  const dir = backwards ? 'asc' : 'desc';
  const rows = await q
    .orderBy(col('created_at'), dir)
    .orderBy(col('id'), dir)
    .limit(params.limit + 1)
    .execute();
  const hasMore = rows.length > params.limit;
  const page = rows.slice(0, params.limit);
  if (backwards) page.reverse();
  const edge = backwards ? page[0] : page[page.length - 1];
  return {
    data: page.map(map),
    hasMore,
    nextCursor: hasMore && edge ? cursors.encode(scope, { createdAt: edge.created_at, id: edge.id }) : null,
  };
}
