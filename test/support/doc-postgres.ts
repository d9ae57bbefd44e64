import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PG_USER, postgresBin, serverUser, startCluster } from './postgres.js';
import { freePort } from './ports.js';

/** What a docs block that uses PostgreSQL runs with (`BlockMode.postgres`), and what undoes it. */
export interface BlockPostgres {
  /** Each PostgreSQL port the block names (5432, 5433) and the free one it gets instead. */
  ports: Map<number, number>;
  /** A folder to put first on `PATH`. */
  path?: string;
  /** Who runs the block: initdb refuses root, so a root run hands an own-cluster block to `serverUser()`. */
  user?: { uid: number; gid: number };
  /** Stops what the block left running. */
  done(): void;
}

/**
 * `running`: a block written for the cluster Debian's package runs gets a throwaway
 * cluster in its place (the machine's own is never touched), on a free port for 5432,
 * and a `sudo` that runs `sudo -u postgres <command>` as that cluster's superuser.
 * `own`: a block that makes its own cluster gets a free port for each it names, runs as
 * an unprivileged user, and any cluster it leaves running in its folder is stopped after it.
 */
export async function postgresForBlock(mode: 'running' | 'own', code: string, cwd: string): Promise<BlockPostgres> {
  if (mode === 'running') {
    const cluster = await startCluster();
    const bin = join(cwd, '.sudo');
    mkdirSync(bin);
    writeFileSync(
      join(bin, 'sudo'),
      `#!/usr/bin/env bash\n# The docs test's sudo: \`sudo -u postgres <command>\` runs <command> as the superuser of its throwaway cluster.\n` +
        `while [ "\${1:-}" = -u ]; do shift 2; done\n` +
        `PGHOST=${cluster.host} PGPORT=${cluster.port} PGUSER=${PG_USER} PGDATABASE=postgres exec "$@"\n`,
    );
    chmodSync(join(bin, 'sudo'), 0o755);
    return { ports: new Map([[5432, cluster.port]]), path: bin, done: () => cluster.destroy() };
  }
  const ports = new Map<number, number>();
  for (const port of new Set(code.match(/\b543\d\b/g) ?? [])) ports.set(Number(port), await freePort());
  const user = serverUser();
  if (user) chownSync(cwd, user.uid, user.gid);
  const done = () => {
    for (const entry of readdirSync(cwd, { withFileTypes: true })) {
      const data = join(cwd, entry.name);
      if (entry.isDirectory() && existsSync(join(data, 'postmaster.pid'))) {
        spawnSync(join(postgresBin(), 'pg_ctl'), ['stop', '-m', 'immediate', '-w', '-D', data], { stdio: 'ignore', ...user });
      }
    }
  };
  return { ports, ...(user && { user }), done };
}
