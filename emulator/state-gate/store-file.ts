import { existsSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { openStore, StoreOpenError } from '../../src/db/database.js';
import { ServiceError } from '../../src/platform/service-error.js';
import { metaStore } from '../meta.js';
import { readTables } from '../state.js';
import { gateState } from './gate.js';

/**
 * The meta key a store file holds once its rows are known to pass the gate: written by
 * every start of this version (a new file, a checked one, an import), so the check runs
 * once per file. A stricter gate bumps `GATE_VERSION` and files are checked again.
 */
export const GATE_MARK = 'state_gate';
export const GATE_VERSION = 1;

/** A mark as stored: a number written as JSON; anything else is no mark (the file is checked). */
function markOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  try {
    const mark = JSON.parse(value) as unknown;
    return typeof mark === 'number' && Number.isInteger(mark) ? mark : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The file's gate mark, read without writing; `null` when it is no SQLite store of ours
 * (opening it for real says so). A file that is one but cannot be copied to be checked
 * (too large to copy in memory) is refused, never let through unchecked (D-1151).
 */
function readMark(path: string): { mark: number | undefined; image: Buffer } | null {
  let file: BetterSqlite3.Database;
  let row: { value: string } | undefined;
  try {
    file = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  } catch {
    return null;
  }
  try {
    try {
      row = file.prepare('SELECT value FROM meta WHERE key = ?').get(GATE_MARK) as { value: string } | undefined;
    } catch {
      return null;
    }
    const mark = markOf(row?.value);
    if (mark !== undefined && mark >= GATE_VERSION) return { mark, image: Buffer.alloc(0) };
    // Only an unmarked file is copied (`serialize` reads it whole). The copy is opened in
    // memory, where WAL cannot be: its header says rollback journal (bytes 18 and 19).
    let image: Buffer;
    try {
      image = file.serialize();
    } catch (error) {
      throw new StoreOpenError(`cannot use ${path}: it must be checked before use and cannot be read whole (${(error as Error).message}); nothing was changed`);
    }
    image[18] = 1;
    image[19] = 1;
    return { mark, image };
  } finally {
    file.close();
  }
}

/**
 * A `--db` file written by an older version (no gate mark) is checked when it is opened
 * (decisions, D-725): a copy in memory is migrated and its rows, clock and id generator go
 * through the gate. Rows this version cannot read stop the start with a `StoreOpenError`
 * naming the file, the row and the field; the file is not touched.
 */
export async function checkStoreFile(path: string): Promise<void> {
  if (!existsSync(path)) return;
  const found = readMark(path);
  if (!found || (found.mark !== undefined && found.mark >= GATE_VERSION)) return;
  // A copy that does not open (a schema svc-emulator does not write, migrations of a newer
  // version) stops the start: the file is never used unchecked (D-1151).
  const copy = await openStore({ kind: 'memory', image: found.image, imageOf: path }).catch((error: unknown) => {
    if (error instanceof StoreOpenError) throw error;
    throw new StoreOpenError(`cannot use ${path}: ${(error as Error).message}; nothing was changed`);
  });
  try {
    const meta = metaStore(copy.db);
    const read = async (key: string) => {
      try {
        return { value: await meta.get<unknown>(key) };
      } catch {
        return { value: 'unreadable' };
      }
    };
    const clock = await read('clock');
    const ids = await read('ids');
    gateState({
      tables: await readTables(copy.db, { seal: (hash) => hash }),
      clock: clock.value ?? { frozen: true, value: 0 },
      ids: ids.value ?? { time: -1, random: '0', draws: 0 },
    });
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const [first, ...more] = error.errors ?? [];
    const where = first
      ? `${first.field}${typeof first.row === 'string' ? ` (${first.row})` : ''}: ${first.reason}${more.length ? `; and ${more.length} other fault${more.length === 1 ? '' : 's'}` : ''}`
      : error.message;
    throw new StoreOpenError(
      `cannot use ${path}: it holds rows this svc-emulator could not have written (${where}); nothing was changed. Start with --import <state file> to replace its state, or remove the file`,
    );
  } finally {
    await copy.close();
  }
}
