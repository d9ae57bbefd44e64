import { PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import type { AnyKysely, Backend } from '../sql-dialect.js';
import { POSTGRES_DIALECT } from './postgres-dialect.js';
import { describePostgresUrl, passwordOf } from './postgres-url.js';
import { StoreOpenError } from '../store-open-error.js';

/** Options of a PostgreSQL server store. */
export interface PostgresOptions {
  /** `postgres://user:password@host:port/dbname` (or `postgresql://`). */
  url: string;
  /** Connections this process keeps at most. Default 10. */
  poolSize?: number | undefined;
  /** Called with what goes wrong on an idle connection (the server went away). */
  log?: ((message: string, error?: unknown) => void) | undefined;
}

// int8 (counts, sequences) and numeric come back as strings by default: every value of
// ours fits a double, and SQLite and PGlite give numbers.
const INT8 = 20;
const NUMERIC = 1700;
const typesOf = (driver: typeof pg) => ({
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
    return driver.types.getTypeParser(oid, format as 'text');
  },
});

// SQLSTATE classes and codes that say the server is gone, not that the query was wrong.
const LOST_STATES = /^(08|57P0[1-3]|53300)/;
const LOST_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOENT']);
const LOST_MESSAGES = ['Connection terminated', 'timeout exceeded when trying to connect', 'is not queryable', 'Client was closed', 'Connection ended'];

// A deadlock's victim and a serialization failure: the transaction was rolled back whole, and running it again can succeed.
const CONFLICT_STATES = new Set(['40P01', '40001']);

/** Whether `error`, or an error it wraps, says so by its code or message. */
function saysSo(error: unknown, test: (code: string | undefined, message: string | undefined) => boolean): boolean {
  const seen = new Set<unknown>();
  const visit = (e: unknown): boolean => {
    if (!e || typeof e !== 'object' || seen.has(e)) return false;
    seen.add(e);
    const { code, message, cause, errors } = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (test(typeof code === 'string' ? code : undefined, typeof message === 'string' ? message : undefined)) return true;
    if (Array.isArray(errors) && errors.some(visit)) return true;
    return visit(cause);
  };
  return visit(error);
}

/** Whether `error` says the database server cannot be reached (rather than that a query was wrong). */
export function isConnectionLoss(error: unknown): boolean {
  return saysSo(
    error,
    (code, message) =>
      (code !== undefined && (LOST_ERRNOS.has(code) || (code.length === 5 && LOST_STATES.test(code)))) ||
      (message !== undefined && LOST_MESSAGES.some((m) => message.includes(m))),
  );
}

/**
 * Whether `error` says the server rolled the transaction back to let another one through
 * (a deadlock's victim, a serialization failure): nothing it wrote was kept (D-1129).
 */
export function isTransactionConflict(error: unknown): boolean {
  return saysSo(error, (code) => code !== undefined && CONFLICT_STATES.has(code));
}

/** Why a first connection failed, in words (the driver's message without a password). */
function reasonOf(error: unknown, url: string): string {
  const e = error as { code?: string; message?: string; errors?: { code?: string }[] };
  const code = e.code ?? e.errors?.[0]?.code;
  let reason: string;
  if (code === 'ECONNREFUSED') reason = 'connection refused (is PostgreSQL running and listening there?)';
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') reason = 'no such host';
  else if (code === 'ETIMEDOUT' || e.message?.includes('timeout')) reason = 'no answer in time';
  else reason = (e.message ?? String(error)).split('\n')[0]!;
  const password = passwordOf(url);
  return password ? reason.split(password).join('***') : reason;
}

// Advisory lock ids are 64-bit; a name is hashed into one by the server.
const lockKey = (name: string) => sql`hashtextextended(${`svc-emulator:${name}`}, 0)`;

/**
 * A PostgreSQL server through `pg`'s pool: several processes may share it, so the store
 * says it is `shared`, `exclusive` takes a session advisory lock (migrations and a
 * first start's set-up run one process at a time), and a lost connection is reported
 * as such so that requests answer `503` until the server is back. The pool replaces
 * broken connections by itself.
 */
export async function openPostgres(options: PostgresOptions): Promise<Backend> {
  const where = describePostgresUrl(options.url);
  // Loaded on first use: a start on SQLite never needs the driver (decisions, D-747).
  const { default: driver } = await import('pg');
  const pool = new driver.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    // A request waits this long for a connection before answering 503.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    types: typesOf(driver),
  });
  // An idle connection the server dropped must not end the process.
  pool.on('error', (error) => options.log?.(`PostgreSQL connection to ${where} lost`, error));
  // Nor one dropped while checked out between queries: its next query fails (503) instead.
  pool.on('connect', (client) => client.on('error', () => {}));
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end().catch(() => {});
    throw new StoreOpenError(`cannot open the PostgreSQL database at ${where}: ${reasonOf(error, options.url)}`);
  }
  return {
    kysely: new PostgresDialect({ pool }),
    sql: POSTGRES_DIALECT,
    shared: true,
    where,
    async exclusive<T>(db: AnyKysely, name: string, fn: (locked: AnyKysely) => Promise<T>): Promise<T> {
      return db.connection().execute(async (conn) => {
        await sql`SELECT pg_advisory_lock(${lockKey(name)})`.execute(conn);
        try {
          return await fn(conn);
        } finally {
          await sql`SELECT pg_advisory_unlock(${lockKey(name)})`.execute(conn).catch(() => {});
        }
      });
    },
    unavailable: isConnectionLoss,
    conflicted: isTransactionConflict,
    async close(db) {
      await db.destroy();
    },
  };
}
