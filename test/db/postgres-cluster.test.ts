import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const SUPPORT = pathToFileURL(fileURLToPath(new URL('../support/postgres.ts', import.meta.url))).href;

/** Whether something accepts connections on the port of 127.0.0.1. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe("the tests' throwaway PostgreSQL cluster", () => {
  it('stops and leaves no folder behind when the process that started it is killed', async () => {
    // A run killed (a cancelled CI job, `kill -9`) skips its teardown.
    const script = `const { startCluster } = await import(${JSON.stringify(SUPPORT)});
const cluster = await startCluster();
console.log(JSON.stringify({ dir: cluster.dir, port: cluster.port }));
setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code} before the cluster started`)));
    });
    const { dir, port } = JSON.parse(line) as { dir: string; port: number };
    expect(await listening(port)).toBe(true);
    child.kill('SIGKILL');
    const until = Date.now() + 25_000;
    while ((existsSync(dir) || (await listening(port))) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await listening(port)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  }, 60_000);
});
