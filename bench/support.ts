import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import type { KnowledgeSourceTable } from '../src/db/schema/knowledge.js';
import { pendingRow } from '../src/knowledge/sources.js';

/** Starts a server process and resolves once it prints `... ready at <url>`. */
export function startServer(args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string; ms: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /ready at (http:\/\/\S+)/.exec(out);
      if (m) {
        const ms = performance.now() - t0;
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        resolve({ child, url: m[1]!, ms });
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const done = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await done;
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

export const fmt = (n: number, digits = 1): string => n.toFixed(digits);

/**
 * A ready upload's row of `knowledge_sources`, for benchmarks that write a workspace's
 * sources straight into the store (ingesting thousands would measure ingestion): every
 * column, `fields` over a new source's defaults (`pendingRow`), ready.
 */
export function readySourceRow(fields: Pick<KnowledgeSourceTable, 'id' | 'workspace_id' | 'created_at'> & Partial<KnowledgeSourceTable>): KnowledgeSourceTable {
  const { created_at, ...rest } = fields;
  return pendingRow({
    agent_id: null,
    kind: 'upload',
    title: fields.id,
    topics: '[]',
    status: 'ready',
    source_lang: 'en',
    content_type: 'text/markdown',
    byte_size: 0,
    chunk_count: 1,
    now: created_at,
    ...rest,
  });
}
