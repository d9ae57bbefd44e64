import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

// O_NOFOLLOW is not defined on Windows; O_EXCL alone already refuses an existing name there.
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
const ATTEMPTS = 8;

/**
 * Writes `data` to `path` so that a reader sees the old file or the whole new one, and
 * nothing anyone planted beside it is followed or reused (decisions, D-740): a new file
 * created exclusively (`O_CREAT | O_EXCL | O_NOFOLLOW`) under a random name in the
 * target's folder, mode 0600 whatever the umask, written and fsynced, renamed over
 * `path` (a rename replaces a file or a symlink there; it never writes through one),
 * then the folder fsynced so that the rename itself survives a crash.
 */
export function writeFileSafely(path: string, data: string | Uint8Array): void {
  const dir = dirname(path);
  const { fd, temp } = createTemp(dir, basename(path));
  try {
    try {
      fchmodSync(fd, 0o600);
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    // Only our own file: it was created by this call, exclusively.
    rmSync(temp, { force: true });
    throw error;
  }
  syncFolder(dir);
}

function createTemp(dir: string, name: string): { fd: number; temp: string } {
  for (let attempt = 1; ; attempt++) {
    const temp = join(dir, `.${name}.${randomBytes(9).toString('base64url')}.tmp`);
    try {
      return { fd: openSync(temp, CREATE_NEW, 0o600), temp };
    } catch (error) {
      // Someone holds that name (a 72-bit random one): draw another, a few times.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt === ATTEMPTS) throw error;
    }
  }
}

function syncFolder(dir: string): void {
  // Windows cannot open a folder for fsync, and its renames need none.
  if (process.platform === 'win32') return;
  const fd = openSync(dir, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Removes a file this process wrote, if it is still there; never fails a stop. */
export function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // A stop goes on: the file is only stale.
  }
}
