import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { accessSync, chownSync, constants, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from './ports.js';

/** The superuser of a test cluster (trust authentication: no password). */
export const PG_USER = 'svc';

const SERVER_PROGRAMS = ['initdb', 'pg_ctl', 'psql'];

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The folder of PostgreSQL's server programs (`initdb`, `pg_ctl`, `psql`): `PG_BIN` when
 * set, else the first folder on `PATH` that has all three (Homebrew, Fedora, Arch, Nix,
 * a source build), else the newest version of Debian's `postgresql` package, whose
 * server programs are not on `PATH` (/usr/lib/postgresql/<version>/bin; decisions, D-822).
 */
export function postgresBin(env: NodeJS.ProcessEnv = process.env, debianRoot = '/usr/lib/postgresql'): string {
  const hasAll = (dir: string) => SERVER_PROGRAMS.every((p) => isExecutable(join(dir, p)));
  if (env.PG_BIN) {
    if (hasAll(env.PG_BIN)) return env.PG_BIN;
    throw new Error(`PG_BIN=${env.PG_BIN}: ${SERVER_PROGRAMS.join(', ')} are not all there`);
  }
  const onPath = (env.PATH ?? '').split(delimiter).find((dir) => dir !== '' && hasAll(dir));
  if (onPath) return onPath;
  const versions = existsSync(debianRoot) ? readdirSync(debianRoot).filter((v) => hasAll(join(debianRoot, v, 'bin'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (versions[0]) return join(debianRoot, versions[0], 'bin');
  throw new Error(
    `PostgreSQL server programs (initdb, pg_ctl, psql) are neither on PATH nor under ${debianRoot}/*/bin: install them ` +
      '(`apt-get install postgresql`, as .ci/run does; `brew install postgresql@17`; `dnf install postgresql-server`) or set PG_BIN to their folder',
  );
}

/** Whether PostgreSQL's server programs are installed (`postgresBin` finds them): benchmarks skip the store otherwise. */
export function postgresInstalled(): boolean {
  try {
    postgresBin();
    return true;
  } catch {
    return false;
  }
}

/** Who runs the server: initdb refuses root, so root hands it to `postgres` (or `nobody`). */
export function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const found = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    if (found.status === 0) {
      const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' }).stdout.trim();
      return { uid: Number(found.stdout.trim()), gid: Number(gid) };
    }
  }
  throw new Error('running as root with neither a postgres nor a nobody user to run PostgreSQL as');
}

export interface PgCluster {
  host: string;
  port: number;
  dir: string;
  /** The URL of database `name` (`postgres` by default). */
  url(name?: string): string;
  /** Creates an empty database and answers its URL. */
  createDatabase(name: string): string;
  /** Stops the server at once (`-m immediate`), as a crash or a lost network would. */
  stop(): void;
  /** Starts it again on the same port and data. */
  start(): void;
  /** Stops it and removes its folder. */
  destroy(): void;
}

/**
 * A throwaway PostgreSQL cluster: `initdb` in a temporary folder, the server on a free
 * port of 127.0.0.1 (its socket in the same folder), fsync off unless `durable`. Tests share one per run
 * (`postgres-setup.ts`); a test that stops the server starts its own.
 */
export async function startCluster(options: { durable?: boolean } = {}): Promise<PgCluster> {
  const bin = postgresBin();
  const owner = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'svc-emu-pg-'));
  const data = join(dir, 'data');
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const asOwner = { ...(owner && { uid: owner.uid, gid: owner.gid }), cwd: dir, stdio: 'pipe' as const, env: { ...process.env, LC_ALL: 'C' } };
  execFileSync(join(bin, 'initdb'), ['-D', data, '-U', PG_USER, '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'], asOwner);
  const port = await freePort();
  const host = '127.0.0.1';
  // Fast and forgetful unless `durable`: an immediate stop of a durable one keeps every commit.
  const speed = options.durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
  const serverOptions = `-p ${port} -k ${dir} -h ${host}${speed} -c max_connections=300 -c shared_buffers=32MB`;
  const start = () => {
    execFileSync(join(bin, 'pg_ctl'), ['start', '-w', '-t', '60', '-D', data, '-l', join(dir, 'server.log'), '-o', serverOptions], asOwner);
  };
  const stop = () => {
    spawnSync(join(bin, 'pg_ctl'), ['stop', '-m', 'immediate', '-w', '-D', data], asOwner);
  };
  start();
  outliveNot(process.pid, join(bin, 'pg_ctl'), data, dir, owner);
  const url = (name = 'postgres') => `postgres://${PG_USER}@${host}:${port}/${name}`;
  return {
    host,
    port,
    dir,
    url,
    createDatabase(name) {
      execFileSync(join(bin, 'psql'), ['-q', '-h', host, '-p', String(port), '-U', PG_USER, '-d', 'postgres', '-c', `CREATE DATABASE "${name}"`], {
        stdio: 'pipe',
      });
      return url(name);
    },
    stop,
    start,
    destroy() {
      stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Stops the cluster and removes its folder once process `pid` has ended, however it
 * ended: a test run killed (a CI job cancelled, `kill`, a second Ctrl-C) skips its
 * teardown and left the server running and its folder in the temporary directory. A
 * detached shell polls for the process (through /proc, which answers for any user's
 * process, else `ps`); after a normal teardown it finds nothing left to stop or remove.
 */
function outliveNot(pid: number, pgCtl: string, data: string, dir: string, owner: { uid: number; gid: number } | undefined): void {
  const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  const alive = `if [ -d /proc/self ]; then [ -d /proc/${pid} ]; else ps -p ${pid} > /dev/null 2>&1; fi`;
  const script = `while ${alive}; do sleep 1; done; [ -d ${q(data)} ] && ${q(pgCtl)} stop -m immediate -w -D ${q(data)}; rm -rf ${q(dir)}`;
  const watchdog = spawn('/bin/sh', ['-c', script], { detached: true, stdio: 'ignore', ...(owner && { uid: owner.uid, gid: owner.gid }), cwd: tmpdir() });
  watchdog.unref();
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's shared test cluster (`postgres-setup.ts`). */
    postgres: { host: string; port: number };
  }
}

let made = 0;

/** `psql` arguments that run one command as the superuser on the cluster's `postgres` database. */
const psqlArgs = (cluster: { host: string; port: number }, command: string) => [
  '-q',
  '-h',
  cluster.host,
  '-p',
  String(cluster.port),
  '-U',
  PG_USER,
  '-d',
  'postgres',
  '-c',
  command,
];

/**
 * A new empty database on the run's shared cluster; answers its URL. Synchronous (psql),
 * so that a backend's options can be built where a test needs them. With `template`,
 * a copy of that database (one whose migrations are applied: `postgres-setup.ts`).
 */
export function freshDatabase(cluster: { host: string; port: number }, prefix = 'test', template?: string): string {
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${made++}`;
  const copy = template ? ` TEMPLATE "${template}"` : '';
  execFileSync(join(postgresBin(), 'psql'), psqlArgs(cluster, `CREATE DATABASE "${name}"${copy}`), { stdio: 'pipe' });
  return `postgres://${PG_USER}@${cluster.host}:${cluster.port}/${name}`;
}

/** Drops a database of `freshDatabase` in the background (its emulator has closed). */
export function dropDatabase(cluster: { host: string; port: number }, url: string): void {
  const name = new URL(url).pathname.slice(1);
  execFile(join(postgresBin(), 'psql'), psqlArgs(cluster, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`), () => {});
}
