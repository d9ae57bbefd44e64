import { realpathSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { StoreOpenError } from './store-open-error.js';

/**
 * Holds `<path>-lock` for as long as a store kept at `path` (a SQLite file, a PGlite data
 * directory) is open: a lock SQLite takes on a file of its own (an exclusive transaction
 * never ended), so the operating system drops it when the process ends, killed or not. A
 * second emulator on the same store, in this process or another, is refused: each keeps
 * caches of what it wrote and would answer from its own (D-1130). The store itself is
 * not locked: the `sqlite3` shell still reads a file.
 */
export function holdStore(path: string, kind: 'file' | 'data directory'): { release(): void } {
  const lockPath = `${canonical(path)}-lock`;
  let lock: BetterSqlite3.Database | undefined;
  try {
    lock = new BetterSqlite3(lockPath, { timeout: 0 });
    // Nothing is ever written to it: no journal file beside it either.
    lock.pragma('journal_mode = MEMORY');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock?.close();
    if ((error as { code?: unknown }).code !== 'SQLITE_BUSY') {
      throw new StoreOpenError(`cannot use ${path}: cannot take its lock file ${lockPath}: ${(error as Error).message}`);
    }
    throw new StoreOpenError(
      `cannot use ${path}: another svc-emulator has it open (in this process or another). Two emulators on one store would each answer from caches of their own writes; stop the other, use another ${kind}, or share a postgres:// database between them`,
    );
  }
  const held = lock;
  return {
    release() {
      if (!held.open) return;
      // Unlinked while still held: one who opens the name from now on makes a new file and
      // holds that; removed after the close, it could be taken from under someone who had
      // just locked it.
      rmSync(lockPath, { force: true });
      held.close();
    },
  };
}

/** One name for one place however it is spelt (relative, `./`, through a symbolic link to its folder). */
function canonical(path: string): string {
  const absolute = resolve(path);
  try {
    return join(realpathSync(dirname(absolute)), basename(absolute));
  } catch {
    return absolute;
  }
}
