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

/** The file's gate mark, read without writing; `null` when it is no store of ours (opening it for real says so). */
function readMark(path: string): { mark: number | undefined; image: Buffer } | null {
  try {
    const file = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
    try {
      const row = file.prepare('SELECT value FROM meta WHERE key = ?').get(GATE_MARK) as { value: string } | undefined;
      const mark = row === undefined ? undefined : Number(JSON.parse(row.value));
      if (mark !== undefined && mark >= GATE_VERSION) return { mark, image: Buffer.alloc(0) };
      // Only an unmarked file is copied (`serialize` reads it whole). The copy is opened in
      // memory, where WAL cannot be: its header says rollback journal (bytes 18 and 19).
      const image = file.serialize();
      image[18] = 1;
      image[19] = 1;
      return { mark, image };
    } finally {
      file.close();
    }
  } catch {
    return null;
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
  const copy = await openStore({ kind: 'memory', image: found.image }).catch(() => undefined);
  if (!copy) return;
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
