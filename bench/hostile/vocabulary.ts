import { performance } from 'node:perf_hooks';
import { fmt } from '../support.js';
import { meLatency } from './latency.js';

const FILES = 5;
const WORDS = 100_000;
const LETTERS = 'bcdfghjklmnpqrtvwxz';

/** The `n`th word of consonants: no stemmer rule changes it and no vocabulary holds it whole. */
const word = (n: number) => Array.from({ length: 6 }, (_, k) => LETTERS[Math.floor(n / LETTERS.length ** k) % LETTERS.length]).join('');

/** A CSV whose header names `WORDS` columns no other file names (a wide export, part numbers). */
function wideCsv(file: number): Uint8Array {
  const names = Array.from({ length: WORDS }, (_, i) => word((file * WORDS + i) * 7));
  return new TextEncoder().encode(`${names.join(',')}\n${names.map(() => '1').join(',')}\n`);
}

type Control = <T>(path: string, method: string, body?: unknown) => Promise<T>;

/**
 * Another workspace's `GET /v1/me` while one workspace's agent gets 500,000 distinct
 * words (five wide CSV uploads, D-1156, D-1158), then one small upload and two queries
 * (its index brought up to date, then written), against the idle p99 of the same run.
 */
export async function vocabulary(url: string, control: Control, quietKey: string, idle: { p99: number }): Promise<void> {
  const ws = await control<{ workspaceId: string; apiKey: { secret: string } }>('/_emulator/workspaces', 'POST', { name: 'Wide exports' });
  await control(`/_emulator/workspaces/${ws.workspaceId}`, 'PATCH', { rateLimit: { limit: 1e9 } });
  const auth = { authorization: `Bearer ${ws.apiKey.secret}` };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<{ id: string }>;
  };
  const agent = await post('/v1/agents', { name: 'Exports', identity: { businessName: 'Acme' } });
  const files = Array.from({ length: FILES }, (_, i) => wideCsv(i));
  const upload = async (bytes: Uint8Array, name: string, type: string) => {
    const form = new FormData();
    form.set('file', new File([bytes], name, { type }));
    form.set('agentId', agent.id);
    const res = await fetch(`${url}/v1/knowledge/uploads`, { method: 'POST', headers: auth, body: form });
    if (res.status !== 202) throw new Error(`upload: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { id: string }).id;
  };
  const ready = async (ids: string[]) => {
    for (const id of ids) {
      for (;;) {
        const s = (await (await fetch(`${url}/v1/knowledge/sources/${id}`, { headers: auth })).json()) as { status: string; error?: string };
        if (s.status === 'failed') throw new Error(`source ${id} failed: ${s.error}`);
        if (s.status === 'ready') break;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  const ask = (query: string) => post(`/v1/agents/${agent.id}/query`, { query, limit: 5 });
  const t0 = performance.now();
  const steps = {} as Record<'ingest' | 'first' | 'update', number>;
  const scenario = (async () => {
    const ids = [];
    for (const [i, bytes] of files.entries()) ids.push(await upload(bytes, `export-${i}.csv`, 'text/csv'));
    await ready(ids);
    steps.ingest = performance.now() - t0;
    await ask(`${word(7)} ${word(14)}`);
    steps.first = performance.now() - t0;
    await ready([await upload(new TextEncoder().encode('The exports are refreshed every night.'), 'note.txt', 'text/plain')]);
    await ask('When are the exports refreshed?');
    // The index of the new version is written after that answer; the next query waits behind it if it blocks.
    await ask(`${word(21)} exports`);
    await new Promise((r) => setTimeout(r, 3000));
    steps.update = performance.now() - t0;
  })();
  const loaded = await meLatency(url, quietKey, scenario);
  await scenario;
  console.log(
    `while another workspace's agent gets ${FILES} CSVs of ${WORDS.toLocaleString('en')} distinct column names (${fmt(files.reduce((n, f) => n + f.length, 0) / 1048576)} MiB), is asked, gets one more upload and is asked twice`,
  );
  console.log(`  ready after ${fmt(steps.ingest / 1000)} s; first answer at ${fmt(steps.first / 1000)} s; the rest by ${fmt(steps.update / 1000)} s`);
  console.log(`  GET /v1/me    p99 ${fmt(loaded.p99, 2)} ms  max ${fmt(loaded.max, 0)} ms  ${fmt(loaded.rps, 0)} req/s  non-2xx ${loaded.non2xx}`);
  console.log(`  ratio         ${fmt(loaded.p99 / idle.p99, 2)}x the idle p99; longest wait ${fmt(loaded.max / idle.p99, 0)}x it`);
}
