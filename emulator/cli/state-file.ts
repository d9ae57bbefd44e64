import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isPostgresUrl } from '../../src/db/dialects/postgres/postgres-url.js';
import BetterSqlite3 from 'better-sqlite3';
import * as v from 'valibot';
import { BODY_LIMITS } from '../../src/platform/http-body.js';
import { ServiceError } from '../../src/platform/service-error.js';
import { toFieldErrors } from '../../src/platform/validation.js';
import type { Emulator } from '../emulator.js';
import { createSealer, seedSecret } from '../seal.js';
import { writeFileSafely } from './safe-file.js';
import { PLAIN_HASH, SEALED_COLUMNS, STATE_FORMAT, STATE_VERSION, StateDocumentSchema, unseenNameFault, type StateDocument } from '../state.js';
import { gateState, MAX_FAULTS } from '../state-gate/gate.js';
import { migrateTables } from '../state-gate/migrate.js';

/** A state file that cannot be used; the message is one line that names the file. */
export class StateFileError extends Error {}

/** The secret a PostgreSQL database keeps, read with one query; none when it has none yet or cannot be reached. */
async function postgresSecret(url: string): Promise<string | undefined> {
  // Loaded on first use, as the backend loads it (decisions, D-747).
  const { default: driver } = await import('pg');
  const client = new driver.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ value: string }>("SELECT value FROM meta WHERE key = 'secret'");
    return rows[0] ? (JSON.parse(rows[0].value) as string) : undefined;
  } catch {
    // A new database (no meta yet) takes the seed's secret; an unreachable one fails the start itself.
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The secret an emulator started with these options will have, when it can be known. */
async function targetSecret(db: string | undefined, seed: string | undefined): Promise<string | undefined> {
  // A PostgreSQL database keeps its own secret as a store file does (D-971).
  const kept = db !== undefined && isPostgresUrl(db) ? await postgresSecret(db) : undefined;
  if (kept !== undefined) return kept;
  if (db !== undefined && !isPostgresUrl(db) && existsSync(db)) {
    // A store file keeps its own secret; read it without writing anything.
    const store = new BetterSqlite3(db, { readonly: true, fileMustExist: true });
    try {
      const row = store.prepare("SELECT value FROM meta WHERE key = 'secret'").get() as { value: string } | undefined;
      if (row) return JSON.parse(row.value) as string;
    } catch {
      // Not a store of ours: opening it for real will say so.
    } finally {
      store.close();
    }
  }
  return seed === undefined ? undefined : seedSecret(seed);
}

/**
 * Reads a state file for `--import` and checks everything that can be checked without a
 * store: JSON, format, version, shape, and key hashes. Hashes come back in the clear: a
 * file `--export-on-exit` wrote has them so; a sealed one (`GET /_emulator/state`) opens
 * only with the secret the emulator about to start will have (same `--seed`, same `--db`
 * file or PostgreSQL database).
 */
/**
 * The file's text, read without blocking the thread (a pipe or a FIFO may be slow, and a
 * signal must still be heard) and no further than `PUT /_emulator/state` reads a body
 * (64 MiB, D-1115): `/dev/zero` or a 3 GB file is refused as soon as it passes.
 */
async function readLimited(path: string, limit: number): Promise<string> {
  const file = await open(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const { bytesRead, buffer } = await file.read(Buffer.alloc(1024 * 1024), 0, 1024 * 1024, null);
      if (bytesRead === 0) break;
      size += bytesRead;
      if (size > limit) throw new StateFileError(`${path} is larger than ${limit / (1024 * 1024)} MiB, the most a state document may be`);
      chunks.push(buffer.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    await file.close();
  }
}

export async function readStateFile(path: string, target: { db: string | undefined; seed: string | undefined }): Promise<StateDocument> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readLimited(path, BODY_LIMITS.control));
  } catch (error) {
    if (error instanceof StateFileError) throw error;
    const e = error as NodeJS.ErrnoException;
    throw new StateFileError(e.code ? `cannot read ${path}: ${e.code === 'ENOENT' ? 'no such file' : e.message}` : `${path} is not JSON: ${e.message}`);
  }
  const doc = raw as Partial<Record<string, unknown>> | null;
  if (!doc || typeof doc !== 'object' || doc.format !== STATE_FORMAT) {
    throw new StateFileError(`${path} is not a state file of svc-emulator (no "format": "${STATE_FORMAT}")`);
  }
  if (typeof doc.version === 'number' && doc.version > STATE_VERSION) {
    throw new StateFileError(
      `${path} is state version ${doc.version}, newer than this svc-emulator reads (version ${STATE_VERSION}); upgrade svc-emulator to import it`,
    );
  }
  const unseen = unseenNameFault(raw);
  if (unseen) throw new StateFileError(`${path}: field ${unseen.field}: ${unseen.reason}`);
  const parsed = v.safeParse(StateDocumentSchema, raw);
  if (!parsed.success) {
    const first = toFieldErrors(parsed.issues)[0]!;
    throw new StateFileError(`${path}: field ${first.field}: ${first.reason}`);
  }
  const state = parsed.output as StateDocument;
  let sealer: ReturnType<typeof createSealer> | undefined | null = null;
  for (const [table, columns] of Object.entries(SEALED_COLUMNS)) {
    for (const [i, row] of (state.tables[table] ?? []).entries()) {
      for (const column of columns) {
        const value = row[column];
        if (typeof value === 'string' && PLAIN_HASH.test(value)) continue;
        if (sealer === null) {
          const secret = await targetSecret(target.db, target.seed);
          sealer = secret === undefined ? undefined : createSealer(secret);
        }
        const opened = typeof value === 'string' ? sealer?.open(value) : undefined;
        if (opened === undefined) {
          throw new StateFileError(
            `${path}: tables.${table}.${i}.${column} is sealed by another emulator; import it with the --seed (or --db) of the emulator that exported it, or export with --export-on-exit, which writes files any emulator imports`,
          );
        }
        row[column] = opened;
      }
    }
  }
  // Every row as the service writes it, before a store is opened (D-720).
  try {
    gateState({ ...state, tables: migrateTables(state.tables) });
  } catch (error) {
    throw importFailure(path, error);
  }
  return state;
}

/** The one line a refused import says, from the emulator's error: the first fault, and how many more. */
export function importFailure(path: string, error: unknown): StateFileError {
  if (error instanceof ServiceError) {
    const [first, ...more] = error.errors ?? [];
    if (!first) return new StateFileError(`${path}: ${error.message}`);
    const row = typeof first.row === 'string' ? ` (${first.row})` : '';
    const others = more.length === 0 ? '' : `; and ${more.length}${more.length + 1 >= MAX_FAULTS ? ' or more' : ''} other fault${more.length === 1 ? '' : 's'}`;
    return new StateFileError(`${path}: ${first.field}${row}: ${first.reason}${others}`);
  }
  return new StateFileError(`${path}: ${(error as Error).message}`);
}

/** Refuses a path we are to write later (`--export-on-exit`, `--write-env`) that could never be written, before anything starts. */
export function checkExportTarget(path: string, flag = '--export-on-exit'): void {
  const dir = dirname(path);
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw new StateFileError(`${flag} ${path}: cannot write in ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (existsSync(path) && statSync(path).isDirectory()) throw new StateFileError(`${flag} ${path} is a directory`);
}

/**
 * Writes the whole state to `path` safely (a fresh 0600 file beside it, renamed over it:
 * `writeFileSafely`, D-740), so a reader never sees half a file. Key hashes are in the
 * clear (see `readStateFile`): the file is as private as a credential.
 */
export async function writeStateFile(emulator: Emulator, path: string): Promise<void> {
  const doc = await emulator.exportState({ plainHashes: true });
  writeFileSafely(path, `${JSON.stringify(doc, null, 2)}\n`);
}
