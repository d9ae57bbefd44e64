import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './cli.js';

/** The superuser of a test cluster (trust authentication: no password). */
export const PG_USER = 'svc';

/** Where Debian's `postgresql` package puts the server programs (the newest version). */
export function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) {
    throw new Error('PostgreSQL server programs not found under /usr/lib/postgresql: install them with `apt-get install postgresql` (.ci/run does)');
  }
  return join(root, versions[0], 'bin');
}

/** Who runs the server: initdb refuses root, so root hands it to `postgres` (or `nobody`). */
function serverUser(): { uid: number; gid: number } | undefined {
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
  const url = (name = 'postgres') => `postgres://${PG_USER}@${host}:${port}/${name}`;
  return {
    host,
    port,
    dir,
    url,
    createDatabase(name) {
      execFileSync(join(bin, 'psql'), ['-q', '-h', host, '-p', String(port), '-U', PG_USER, '-d', 'postgres', '-c', `CREATE DATABASE "${name}"`], { stdio: 'pipe' });
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

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's shared test cluster (`postgres-setup.ts`). */
    postgres: { host: string; port: number };
  }
}

let made = 0;

/**
 * A new empty database on the run's shared cluster; answers its URL. Synchronous (psql),
 * so that a backend's options can be built where a test needs them.
 */
export function freshDatabase(cluster: { host: string; port: number }, prefix = 'test'): string {
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${made++}`;
  execFileSync(join(postgresBin(), 'psql'), ['-q', '-h', cluster.host, '-p', String(cluster.port), '-U', PG_USER, '-d', 'postgres', '-c', `CREATE DATABASE "${name}"`], { stdio: 'pipe' });
  return `postgres://${PG_USER}@${cluster.host}:${cluster.port}/${name}`;
}
