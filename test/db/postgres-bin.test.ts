import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresBin } from '../support/postgres.js';

// Where the suite (and .ci/run) finds PostgreSQL's server programs: a team's machine may
// have them from Homebrew or another distribution (on PATH) or from Debian's
// `postgresql` package, which keeps them off PATH in /usr/lib/postgresql/<version>/bin.
const root = mkdtempSync(join(tmpdir(), 'svc-emu-pgbin-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A folder holding (fake) executables named `programs`. */
function folder(name: string, programs: string[], mode = 0o755): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const program of programs) {
    writeFileSync(join(dir, program), '#!/bin/sh\n');
    chmodSync(join(dir, program), mode);
  }
  return dir;
}

const ALL = ['initdb', 'pg_ctl', 'psql'];
const noDebian = join(root, 'no-debian');

describe('postgresBin', () => {
  it('takes the first folder on PATH that holds initdb, pg_ctl and psql (Homebrew, Fedora, Arch)', () => {
    const clientOnly = folder('usr-bin', ['psql']);
    const brew = folder('brew/bin', ALL);
    const later = folder('later/bin', ALL);
    const PATH = [clientOnly, brew, later].join(delimiter);
    expect(postgresBin({ PATH }, noDebian)).toBe(brew);
  });

  it("falls back to the newest version of Debian's folder when PATH has no server programs", () => {
    const debian = join(root, 'debian');
    folder('debian/9.6/bin', ALL);
    folder('debian/13/bin', ALL);
    const v15 = folder('debian/15/bin', ALL);
    folder('debian/16/bin', ['psql']); // a client-only install is not a server
    expect(postgresBin({ PATH: folder('usr-bin', ['psql']) }, debian)).toBe(v15);
  });

  it('skips a folder whose programs are not executable', () => {
    const notExec = folder('not-exec/bin', ALL, 0o644);
    const debian = join(root, 'debian-2');
    const v13 = folder('debian-2/13/bin', ALL);
    expect(postgresBin({ PATH: notExec }, debian)).toBe(v13);
  });

  it('PG_BIN wins, and a PG_BIN without the programs is an error naming it', () => {
    const own = folder('own/bin', ALL);
    expect(postgresBin({ PG_BIN: own, PATH: folder('brew/bin', ALL) }, noDebian)).toBe(own);
    const empty = folder('empty', []);
    expect(() => postgresBin({ PG_BIN: empty }, noDebian)).toThrow(`PG_BIN=${empty}: initdb, pg_ctl, psql are not all there`);
  });

  it('names the ways to install them when there are none', () => {
    expect(() => postgresBin({ PATH: '' }, noDebian)).toThrow(/apt-get install postgresql.*brew install.*PG_BIN/);
  });

  it("finds this machine's real programs, which run", () => {
    const bin = postgresBin();
    expect(execFileSync(join(bin, 'initdb'), ['--version'], { encoding: 'utf8' })).toMatch(/^initdb \(PostgreSQL\) \d+/);
  });
});
