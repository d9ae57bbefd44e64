/**
 * Random requests at once, and what must hold after them (D-1131 to D-1137):
 * `npm run bench -- concurrency`. Each seed sends rounds of six requests together (sites,
 * pages, themes, brands, agents, knowledge, chat turns JSON and streamed on a model that
 * takes its time, a translator that does too, deletions, imports of the state just
 * exported), to one emulator on SQLite and to two emulators sharing one PostgreSQL
 * database (a throwaway cluster, when Debian's `postgresql` is installed). Every five
 * rounds, after the queue drains: no answer was a 5xx, the state exports and imports
 * again, and every ready source of the pool is found by the made-up word it alone holds,
 * through either emulator. It prints one line per seed and store; a failure names what
 * broke. Not part of CI: timing decides which requests meet, so a seed shows a race
 * only sometimes. `BENCH_FUZZ_SEEDS` (`1-4`), `BENCH_FUZZ_ROUNDS` (40),
 * `BENCH_FUZZ_STORES` (`sqlite,postgres`).
 */
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import type { ChatModel } from '../../src/chat/chat-model.js';
import type { Translator } from '../../src/pages/translator.js';
import { postgresBin, startCluster } from '../../test/support/postgres.js';

const [FIRST, LAST] = (process.env.BENCH_FUZZ_SEEDS ?? '1-4').split('-').map(Number) as [number, number?];
const ROUNDS = Number(process.env.BENCH_FUZZ_ROUNDS ?? 40);
const STORES = (process.env.BENCH_FUZZ_STORES ?? 'sqlite,postgres').split(',');
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
  const ws = await emulators[0]!.createWorkspace();
  const call = async (method: string, path: string, body?: unknown, accept?: string) => {
    const form = body instanceof FormData;
    const headers: Record<string, string> = { authorization: `Bearer ${ws.apiKey.secret}`, ...(accept && { accept }) };
    if (body !== undefined && !form) headers['content-type'] = 'application/json';
    const res = await pick(emulators)!.fetch(
      new Request(`http://localhost${path}`, { method, headers, body: form ? body : body === undefined ? undefined : JSON.stringify(body) }),
    );
    const text = await res.text();
    if (res.status >= 500) failures.push(`${method} ${path} answered ${res.status}`);
    return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : undefined };
  };
  const agents: string[] = [];
  const projects: string[] = [];
  const pages: string[] = [];
  const sources: string[] = [];
  let n = 0;
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
    importState: async () => {
      const state = await pick(emulators)!.exportState();
      await pick(emulators)!.importState(state);
    },
  };
  const names = [...Object.keys(ops), 'agent', 'text', 'site', 'page', 'chat', 'stream'];
  const drain = () => Promise.all(emulators.map((e) => e.drain()));
  for (let round = 0; round < ROUNDS && failures.length === 0; round++) {
    await Promise.all(Array.from({ length: 6 }, () => ops[pick(names)!]!()));
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
          failures.push(`round ${round}: ${source.id}, ready, not found by its word "${word}"`);
        }
      }
    }
    try {
      await emulators[0]!.importState(await emulators[0]!.exportState());
    } catch (error) {
      failures.push(`round ${round}: its own export refused: ${JSON.stringify((error as { errors?: unknown }).errors ?? String(error)).slice(0, 300)}`);
    }
  }
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
      try {
        postgresBin();
      } catch {
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
}
