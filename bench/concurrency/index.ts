/**
 * Random requests at once, and what must hold after them (D-1131 to D-1140):
 * `npm run bench -- concurrency`. Each seed sends rounds of six requests together (sites,
 * addresses, pages, themes, brands, agents, knowledge of every kind, crawled pages, chat
 * turns JSON, streamed and continued on a model that takes its time, a translator that
 * does too, assets, API keys, a second workspace created, written and deleted, clock
 * moves, queued ingestion faults, one create sent twice at once under one
 * Idempotency-Key, deletions, imports of the state just exported), to one emulator on
 * SQLite and to two emulators sharing one PostgreSQL database (a throwaway cluster, when
 * Debian's `postgresql` is installed). Every five rounds, after the queue drains: no
 * answer was a 5xx, the state exports and imports again, every ready source of the pool
 * is found by the made-up word it alone holds, through either emulator, at most two keys
 * are active and messages used never pass the credits; and one Idempotency-Key never
 * made two resources. It prints one line per seed and store; a failure names what broke.
 * Not part of CI: timing decides which requests meet, so a seed shows a race only
 * sometimes. `BENCH_FUZZ_SEEDS` (`1-4`), `BENCH_FUZZ_ROUNDS` (40), `BENCH_FUZZ_STORES`
 * (`sqlite,postgres`), `BENCH_FUZZ_OPS` (only these kinds of request, by name),
 * `BENCH_FUZZ_STATS=1` (how often each route answered each status),
 * `BENCH_FUZZ_TRACE=1` (on a failure, the last rounds' requests and a lost source's rows).
 */
import { readFileSync } from 'node:fs';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import type { ChatModel } from '../../src/chat/chat-model.js';
import type { Translator } from '../../src/pages/translator.js';
import { postgresInstalled, startCluster } from '../../test/support/postgres.js';

const PNG = readFileSync(new URL('../../test/fixtures/assets/image.png', import.meta.url));

const [FIRST, LAST] = (process.env.BENCH_FUZZ_SEEDS ?? '1-4').split('-').map(Number) as [number, number?];
const ROUNDS = Number(process.env.BENCH_FUZZ_ROUNDS ?? 40);
const STORES = (process.env.BENCH_FUZZ_STORES ?? 'sqlite,postgres').split(',');
/** `BENCH_FUZZ_STATS=1`: how often each route answered each status, over every seed (whether the requests did anything). */
const statuses = new Map<string, number>();
const SYLLABLES = ['ka', 'vo', 'mi', 'tu', 'ze', 'lo', 'ra', 'pe', 'gu', 'xi', 'bo', 'na', 'fe', 'du', 'si', 'wa'];

/** A word no language has, one per number: what a source alone holds. */
function madeUpWord(k: number): string {
  let w = 'q';
  do {
    w += SYLLABLES[k % 16];
    k = Math.floor(k / 16);
  } while (k > 0);
  return `${w}x`;
}

async function fuzz(seed: number, emulators: Emulator[]): Promise<string[]> {
  let state = (seed * 2654435761) >>> 0;
  const rnd = () => {
    state = (Math.imul(state ^ (state >>> 15), 2246822507) + 0x9e3779b9) >>> 0;
    return state / 2 ** 32;
  };
  const pick = <T>(a: T[]): T | undefined => a[Math.floor(rnd() * a.length)];
  const failures: string[] = [];
  const trace: string[] = [];
  const count = (method: string, path: string, status: number) => {
    const route = `${method} ${path.replace(/\?.*$/, '').replace(/\/(agt|prj|pg|src|ast|key|ws)_[0-9a-z]+/g, '/{$1}')} ${status}`;
    statuses.set(route, (statuses.get(route) ?? 0) + 1);
  };
  const ws = await emulators[0]!.createWorkspace();
  // Few message credits: chat turns in both processes meet at the last one.
  await emulators[0]!.updateWorkspace(ws.workspaceId, { credits: 12 });
  await emulators[0]!.setWeb({
    pages: Array.from({ length: 4 }, (_, i) => ({
      url: `https://fuzz.example/p${i}`,
      headers: { 'Content-Type': 'text/html' },
      body: `<html><body><main><h1>Page ${i}</h1><p>The ${madeUpWord(90_000 + i)} page.</p></main></body></html>`,
    })),
  });
  const call = async (method: string, path: string, body?: unknown, accept?: string) => {
    const form = body instanceof FormData;
    const headers: Record<string, string> = { authorization: `Bearer ${ws.apiKey.secret}`, ...(accept && { accept }) };
    if (body !== undefined && !form) headers['content-type'] = 'application/json';
    const res = await pick(emulators)!.fetch(
      new Request(`http://localhost${path}`, { method, headers, body: form ? body : body === undefined ? undefined : JSON.stringify(body) }),
    );
    const text = await res.text();
    if (res.status >= 500) failures.push(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    count(method, path, res.status);
    return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : undefined };
  };
  const agents: string[] = [];
  const projects: string[] = [];
  const pages: string[] = [];
  const sources: string[] = [];
  const assets: string[] = [];
  let n = 0;
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await pick(emulators)!.request(path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 500) failures.push(`${method} ${path} answered ${res.status}`);
    count(method, path, res.status);
    return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : undefined };
  };
  const ops: Record<string, () => Promise<unknown>> = {
    agent: async () => {
      const r = await call('POST', '/v1/agents', { name: `A${n++}`, identity: { businessName: 'Acme' } });
      if (r.status === 201) agents.push(r.body.id);
    },
    deleteAgent: async () => call('DELETE', `/v1/agents/${pick(agents) ?? 'agt_none'}`),
    text: async () => {
      const w = madeUpWord(n++);
      const r = await call('POST', '/v1/knowledge/text', {
        title: `W ${w}`,
        text: `The ${w} ships in two days.`,
        topics: [pick(['a', 'b'])],
        agentId: rnd() < 0.5 ? (pick(agents) ?? null) : null,
      });
      if (r.status === 202) sources.push(r.body.id);
    },
    spanish: async () => {
      const w = madeUpWord(n++);
      await call('POST', '/v1/knowledge/text', { title: `W ${w}`, text: `El ${w} se envía en dos días.` });
    },
    upload: async () => {
      const form = new FormData();
      form.set('file', new File(['# Hours\n\nWe open at nine.'], `h${n++}.md`, { type: 'text/markdown' }));
      await call('POST', '/v1/knowledge/uploads', form);
    },
    deleteSource: async () => call('DELETE', `/v1/knowledge/sources/${pick(sources) ?? 'src_none'}`),
    merge: async () => call('POST', '/v1/knowledge/topics/merge', { from: pick(['a', 'b']), into: pick(['a', 'b', 'c']) }),
    chat: async () => call('POST', `/v1/agents/${pick(agents) ?? 'agt_none'}/chat`, { message: 'When does it ship?' }),
    stream: async () => call('POST', `/v1/agents/${pick(agents) ?? 'agt_none'}/chat`, { message: 'Shipping?' }, 'text/event-stream'),
    site: async () => {
      const r = await call('POST', '/v1/projects', { name: `P${n}`, slug: `p-${seed}-${n++}` });
      if (r.status === 201) projects.push(r.body.id);
    },
    deleteSite: async () => call('DELETE', `/v1/projects/${pick(projects) ?? 'prj_none'}`),
    locales: async () => call('PATCH', `/v1/projects/${pick(projects) ?? 'prj_none'}`, { locales: pick([['es'], ['en'], ['es', 'en']]) }),
    page: async () => {
      const agent = rnd() < 0.4 ? pick(agents) : undefined;
      const body = agent
        ? { name: 'C', kind: 'agent', path: `/c${n++}`, agentId: agent }
        : { name: 'D', kind: 'document', path: `/d${n++}`, body: { es: 'Hola', en: '' } };
      const r = await call('POST', `/v1/projects/${pick(projects) ?? 'prj_none'}/pages`, body);
      if (r.status === 201) pages.push(r.body.id);
    },
    editPage: async () =>
      call('PATCH', `/v1/pages/${pick(pages) ?? 'pg_none'}`, pick([{ body: { en: 'Hello' } }, { defaultLocale: 'en' }, { path: `/x${n++}` }])),
    publish: async () => call('POST', `/v1/pages/${pick(pages) ?? 'pg_none'}/${rnd() < 0.7 ? 'publish' : 'unpublish'}`),
    theme: async () => call('PATCH', `/v1/projects/${pick(projects) ?? 'prj_none'}/theme`, { tokens: { radius: 'sm' } }),
    brand: async () => call('PATCH', `/v1/projects/${pick(projects) ?? 'prj_none'}/brand`, { footer: { text: { en: 'x' } } }),
    claim: async () => {
      const w = madeUpWord(n++);
      await call('POST', '/v1/knowledge/claims', {
        claim: { es: `El ${w} abre a las nueve.`, en: `The ${w} opens at nine.` },
        agentId: rnd() < 0.3 ? (pick(agents) ?? null) : null,
      });
    },
    url: async () => call('POST', '/v1/knowledge/urls', { url: `https://fuzz.example/p${Math.floor(rnd() * 4)}`, syncTtlMinutes: 60 }),
    clock: async () =>
      pick(emulators)!.request('/_emulator/clock', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ advanceMs: 3_700_000 }),
      }),
    ingestFault: async () => pick(emulators)!.injectFault({ ingest: 'ingest_failed' }),
    asset: async () => {
      const form = new FormData();
      form.set('file', new File([PNG], 'i.png', { type: 'image/png' }));
      const r = await call('POST', '/v1/assets', form);
      if (r.status === 201) assets.push(r.body.id);
    },
    deleteAsset: async () => call('DELETE', `/v1/assets/${pick(assets) ?? 'ast_none'}`),
    address: async () => call('PUT', `/v1/projects/${pick(projects) ?? 'prj_none'}/address`, { slug: `a-${seed}-${Math.floor(rnd() * 3)}` }),
    patchAgent: async () => call('PATCH', `/v1/agents/${pick(agents) ?? 'agt_none'}`, { name: `B${n++}` }),
    continueChat: async () => {
      const agent = pick(agents) ?? 'agt_none';
      const first = await call('POST', `/v1/agents/${agent}/chat`, { message: 'Opening hours?' });
      if (first.status === 200) await call('POST', `/v1/agents/${agent}/chat`, { message: 'And Sunday?', conversationId: first.body.conversationId });
    },
    key: async () => {
      const r = await control('POST', `/workspaces/${ws.workspaceId}/keys`, { name: 'k', scopes: ['knowledge:read'] });
      if (r.status === 201) await control('DELETE', `/workspaces/${ws.workspaceId}/keys/${r.body.id}`);
    },
    otherWorkspace: async () => {
      const e = pick(emulators)!;
      const other = await e.createWorkspace();
      const res = await pick(emulators)!.request('/v1/knowledge/text', {
        method: 'POST',
        headers: { authorization: `Bearer ${other.apiKey.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Other', text: 'Another workspace' }),
      });
      if (res.status >= 500) failures.push(`other workspace's add answered ${res.status}`);
      // An import meanwhile may have taken it away (a 404): only a 5xx is a failure.
      await pick(emulators)!
        .deleteWorkspace(other.workspaceId)
        .catch((error: { status?: number }) => {
          if (!(error.status! < 500)) failures.push(`deleting another workspace: ${String(error)}`);
        });
    },
    idempotent: async () => {
      // One key, the same body, sent twice at once (to either process): one resource at most.
      const key = `fuzz-${seed}-${n++}`;
      const send = () =>
        pick(emulators)!.request('/v1/agents', {
          method: 'POST',
          headers: { authorization: `Bearer ${ws.apiKey.secret}`, 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify({ name: 'Twin', identity: { businessName: 'Acme' } }),
        });
      const answers = await Promise.all([send(), send()]);
      const bodies = await Promise.all(answers.map(async (r) => ({ status: r.status, body: (await r.json()) as { id?: string; code?: string } })));
      for (const b of bodies) {
        count('POST', '/v1/agents (same key twice)', b.status);
        if (b.status >= 500) failures.push(`an idempotent create answered ${b.status}: ${JSON.stringify(b.body).slice(0, 200)}`);
      }
      const created = bodies.filter((b) => b.status === 201).map((b) => b.body.id);
      if (new Set(created).size > 1) failures.push(`one Idempotency-Key made two agents: ${created.join(', ')}`);
      // Besides the create and its replay: the first still running (409), or what refuses any create (key gone, plan cap, rate).
      const stray = bodies.filter(
        (b) => b.status !== 201 && !(b.status === 409 && b.body.code === 'svc.idempotency.conflict') && ![401, 402, 429].includes(b.status),
      );
      if (stray.length) failures.push(`an idempotent create answered ${stray.map((b) => `${b.status} ${b.body.code}`).join(', ')}`);
      for (const id of created) if (id) agents.push(id);
    },
    importState: async () => {
      const state = await pick(emulators)!.exportState();
      await pick(emulators)!.importState(state);
    },
  };
  const only = process.env.BENCH_FUZZ_OPS?.split(',');
  const names = [...Object.keys(ops), 'agent', 'text', 'site', 'page', 'chat', 'stream'].filter((name) => !only || only.includes(name));
  const drain = () => Promise.all(emulators.map((e) => e.drain()));
  for (let round = 0; round < ROUNDS && failures.length === 0; round++) {
    const chosen = Array.from({ length: 6 }, () => pick(names)!);
    trace.push(`round ${round}: ${chosen.join(' ')}`);
    await Promise.all(chosen.map((name) => ops[name]!()));
    if (round % 5 !== 4) continue;
    await drain();
    const asker = pick(agents);
    if (asker) {
      const listed: { id: string; title: string; agentId: string | null; status: string }[] = [];
      let after: string | undefined;
      do {
        const page = await call('GET', `/v1/knowledge/sources?limit=100${after ? `&after=${after}` : ''}`);
        listed.push(...(page.body?.data ?? []));
        after = page.body?.nextCursor ?? undefined;
      } while (after);
      for (const source of listed.filter((s) => s.agentId === null && s.status === 'ready' && s.title.startsWith('W q'))) {
        const word = source.title.slice(2);
        const answer = await call('POST', `/v1/agents/${asker}/query`, { query: word, topics: [] });
        if (answer.status === 200 && !answer.body.passages.some((p: { sourceId: string }) => p.sourceId === source.id)) {
          // Which process misses it: each asked in turn.
          const missed: number[] = [];
          for (const [k, e] of emulators.entries()) {
            const res = await e.request(`/v1/agents/${asker}/query`, {
              method: 'POST',
              headers: { authorization: `Bearer ${ws.apiKey.secret}`, 'content-type': 'application/json' },
              body: JSON.stringify({ query: word, topics: [] }),
            });
            const body = (await res.json()) as { passages?: { sourceId: string }[] };
            if (!body.passages?.some((p) => p.sourceId === source.id)) missed.push(k);
          }
          failures.push(
            `round ${round}: ${source.id}, ready, not found by its word "${word}" (missed by emulator ${missed.join(', ') || 'none on a second ask'})`,
          );
          if (process.env.BENCH_FUZZ_TRACE === '1') {
            if (trace.length) console.log(trace.splice(0).slice(-12).join('\n'));
            const db = emulators[0]!.service.db;
            const chunks = await db.selectFrom('knowledge_chunks').select(['id', 'terms', 'analyzer_id', 'text']).where('source_id', '=', source.id).execute();
            console.log(`  ${source.id}: ${JSON.stringify(chunks).slice(0, 600)}`);
            const terms = await db
              .selectFrom('knowledge_terms')
              .selectAll()
              .where('workspace_id', '=', ws.workspaceId)
              .where('term', 'like', `%${word.slice(0, 4)}%`)
              .execute();
            console.log(`  terms like it: ${JSON.stringify(terms).slice(0, 400)}`);
          }
        }
      }
    }
    // CONTRACT's limits hold whichever process served the creations (D-1140).
    const keys = await control('GET', `/workspaces/${ws.workspaceId}/keys?limit=100`);
    const active = (keys.body?.data ?? []).filter((k: { revokedAt: string | null }) => k.revokedAt === null).length;
    if (active > 2) failures.push(`round ${round}: ${active} active keys, at most 2 allowed`);
    const usage = await call('GET', '/v1/usage');
    const messages = usage.body?.messages as { used: number; limit: number } | undefined;
    if (messages && messages.used > messages.limit) failures.push(`round ${round}: ${messages.used} messages used of ${messages.limit}`);
    try {
      await emulators[0]!.importState(await emulators[0]!.exportState());
    } catch (error) {
      failures.push(`round ${round}: its own export refused: ${JSON.stringify((error as { errors?: unknown }).errors ?? String(error)).slice(0, 300)}`);
    }
  }
  if (failures.length && process.env.BENCH_FUZZ_TRACE === '1') console.log(trace.slice(-6).join('\n'));
  return failures;
}

const slowModel = (): ChatModel => ({
  id: 'fuzz-model',
  async reply() {
    await new Promise((resolve) => setTimeout(resolve, 3));
    return {
      tokens: (async function* () {
        yield 'It ships ';
        await new Promise((resolve) => setTimeout(resolve, 2));
        yield 'in two days.';
      })(),
    };
  },
});
const slowTranslator: Translator = {
  async translate(texts) {
    await new Promise((resolve) => setTimeout(resolve, 3));
    return texts.map((t) => `${t} (t)`);
  },
};

export async function run(): Promise<void> {
  const log = (message?: unknown, error?: unknown) => error && console.log(`  log: ${String(message)}: ${String(error).slice(0, 200)}`);
  for (let seed = FIRST; seed <= (LAST ?? FIRST); seed++) {
    if (STORES.includes('sqlite')) {
      const emulator = await createEmulator({ fixtures: 'none', seed, log, chatModel: slowModel(), translator: slowTranslator });
      const failures = await fuzz(seed, [emulator]);
      await emulator.close();
      console.log(`sqlite seed ${seed}: ${failures.length ? `FAILED\n  ${failures.join('\n  ')}` : 'ok'}`);
    }
    if (STORES.includes('postgres')) {
      if (!postgresInstalled()) {
        console.log('postgres skipped: no PostgreSQL server programs (apt-get install postgresql)');
        continue;
      }
      const cluster = await startCluster();
      const db = cluster.createDatabase('fuzz');
      const emulators = [
        await createEmulator({ db, fixtures: 'none', seed, log, chatModel: slowModel(), translator: slowTranslator }),
        await createEmulator({ db, fixtures: 'none', seed, log, chatModel: slowModel(), translator: slowTranslator }),
      ];
      const failures = await fuzz(seed, emulators);
      for (const emulator of emulators) await emulator.close();
      cluster.destroy();
      console.log(`postgres (two emulators) seed ${seed}: ${failures.length ? `FAILED\n  ${failures.join('\n  ')}` : 'ok'}`);
    }
  }
  if (process.env.BENCH_FUZZ_STATS === '1') for (const [route, n] of [...statuses].sort()) console.log(`  ${String(n).padStart(5)}  ${route}`);
}
