import type { ChildProcess } from 'node:child_process';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startCli } from '../support/cli.js';
import { tempDbPath } from '../support/backends.js';

const running = new Set<ChildProcess>();

afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

const start = (db: string) => startCli(['--db', db, '--fixtures', 'none'], { track: running });

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

const LONG = `# Handbook\n\n${Array.from({ length: 1200 }, (_, i) => `Paragraph ${i} explains one more rule of the shop in plain words.`).join('\n\n')}`;

describe('restart with --db', () => {
  it('every source accepted pending ends ready or failed after kill -9 and a restart', async () => {
    const db = tempDbPath();
    const first = await start(db);
    const ws = (await (await fetch(`${first.url}/_emulator/workspaces`, { method: 'POST' })).json()) as { apiKey: { secret: string } };
    const headers = { authorization: `Bearer ${ws.apiKey.secret}`, 'content-type': 'application/json' };
    const put = await fetch(`${first.url}/_emulator/web`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        pages: [
          { url: 'https://shop.example/hours', headers: { 'content-type': 'text/html' }, body: '<main><h1>Hours</h1><p>Open from nine to six.</p></main>' },
        ],
      }),
    });
    expect(put.status).toBe(200);
    const post = (path: string, body: unknown) => fetch(`${first.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const accepted: string[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await post('/v1/knowledge/text', { title: `Long ${i}`, text: `${LONG}\n\nDocument ${i}.` });
      expect(res.status).toBe(202);
      accepted.push(((await res.json()) as { id: string }).id);
    }
    for (const url of ['https://shop.example/hours', 'https://nowhere.example/']) {
      const res = await post('/v1/knowledge/urls', { url });
      accepted.push(((await res.json()) as { id: string }).id);
    }
    const claim = await post('/v1/knowledge/claims', { claim: { es: 'Abrimos a las nueve.', en: 'We open at nine.' } });
    accepted.push(((await claim.json()) as { id: string }).id);
    await killed(first.child);

    const check = new BetterSqlite3(db, { readonly: true });
    const pendingAtKill = (check.prepare("SELECT count(*) AS n FROM knowledge_sources WHERE status = 'pending'").get() as { n: number }).n;
    check.close();
    // The test means something only if the kill cut ingestion short.
    expect(pendingAtKill).toBeGreaterThan(0);

    const second = await start(db);
    let sources: { id: string; status: string; error?: string; url?: string }[] = [];
    for (let tries = 0; tries < 300; tries++) {
      const res = await fetch(`${second.url}/v1/knowledge/sources?limit=100`, { headers });
      sources = ((await res.json()) as { data: typeof sources }).data;
      if (sources.every((s) => s.status !== 'pending')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(sources.map((s) => s.id).sort()).toEqual([...accepted].sort());
    for (const s of sources) expect(['ready', 'failed'], s.id).toContain(s.status);
    const byUrl = new Map(sources.filter((s) => s.url).map((s) => [s.url, s]));
    expect(byUrl.get('https://shop.example/hours'), JSON.stringify(sources.filter((s) => s.status === 'failed'))).toMatchObject({ status: 'ready' });
    expect(byUrl.get('https://nowhere.example/')).toMatchObject({ status: 'failed', error: 'fetch_dns_failed' });
    expect(sources.filter((s) => !s.url).every((s) => s.status === 'ready')).toBe(true);
    second.child.kill('SIGTERM');
  });
});
