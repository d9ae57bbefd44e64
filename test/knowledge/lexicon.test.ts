import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import { client, type Client } from '../support/client.js';
import { sections } from '../../src/knowledge/lexicon/segments.js';
import { DEMO_KEY } from '../support/demo-session.js';
import { fileEmulator, quiet, workspace } from '../support/emulator.js';

// The lexicon a workspace learns from its own translations (decisions, D-785 to D-795).
const emulator = await fileEmulator({ seed: 9, fixtures: 'demo' });
const control = client(emulator);
const demo = client(emulator, DEMO_KEY);
const demoWorkspace = (await demo.get('/v1/me')).body.workspaceId as string;

type Pair = { es: string; en: string; weight: number };
const lexiconOf = async (workspaceId: string) =>
  (await control.get(`/_emulator/workspaces/${workspaceId}/lexicon`)).body as { twins: number; units: number; twinnedSources: string[]; pairs: Pair[] };
const agentNamed = async (api: Client, name: string) =>
  ((await api.get('/v1/agents')).body.data as { id: string; name: string }[]).find((a) => a.name === name)!.id;
/** A new workspace of `host` holding `docs` as texts, every job done: its id. */
const loaded = async (host: Emulator, docs: readonly { title: string; text: string }[]) => {
  const ws = await workspace(host);
  for (const doc of docs) expect((await ws.api.post('/v1/knowledge/text', doc)).status).toBe(202);
  await host.drain();
  return ws.workspaceId;
};
/** What a workspace of `host` learned, without ids: source ids are the workspace's own, so the twins are counted, not named. */
const learnedBy = async (host: Emulator, workspaceId: string) => {
  const { workspaceId: _, twinnedSources, ...lexicon } = (await client(host).get(`/_emulator/workspaces/${workspaceId}/lexicon`)).body;
  return { ...lexicon, twinnedSources: twinnedSources.length } as { twins: number; units: number; twinnedSources: number; pairs: Pair[] };
};

const DEMO = JSON.parse(readFileSync(new URL('../../fixtures/demo.json', import.meta.url), 'utf8')) as {
  workspaces: { knowledge: { kind: string; title?: string; text?: string }[] }[];
};
const DEMO_TEXTS = DEMO.workspaces[0]!.knowledge.filter((k) => k.kind === 'text').map((k) => ({ title: k.title!, text: k.text! }));

const WATER = {
  title: 'Water for brewing',
  text: '# Water for brewing\n\nSoft filtered water makes a sweeter cup. Hard water leaves scale in the espresso machine: descale it every month.',
};
const AGUA = {
  title: 'Agua para preparar café',
  text: '# Agua para preparar café\n\nEl agua blanda filtrada da una taza más dulce. El agua dura deja cal en la máquina de espresso: descalcifícala cada mes.',
};

describe("the lexicon learned from the demo workspace's twin documents", () => {
  it('pairs the Spanish and English words its translations use', async () => {
    const lexicon = await lexiconOf(demoWorkspace);
    // Six twin texts (shipping, returns, hours, V60, espresso, origins) and the bilingual claim.
    expect(lexicon.twins).toBe(7);
    const pairs = new Set(lexicon.pairs.map((p) => `${p.es}:${p.en}`));
    // Snowball stems: envío/enviamos and shipping/ship, agua and water, reembolso and refund...
    for (const pair of [
      'envi:ship',
      'agu:water',
      'reembols:refund',
      'devolu:return',
      'paquet:parcel',
      'ped:order',
      'finc:farm',
      'muel:grind',
      'viert:pour',
      'tostader:roasteri',
    ]) {
      expect(pairs, pair).toContain(pair);
    }
    for (const p of lexicon.pairs) expect(p.weight > 0 && p.weight <= 1).toBe(true);
    // The sources it found a twin for: the twelve texts and the claim, not the crawled page.
    const sources = (await demo.get('/v1/knowledge/sources?limit=100')).body.data as { id: string; kind: string }[];
    expect(lexicon.twinnedSources).toEqual(
      sources
        .filter((s) => s.kind !== 'url')
        .map((s) => s.id)
        .sort(),
    );
  });

  it('weighs a translated word as the word itself in a source held in one language only, and answers from the twin once there is one (D-1123)', async () => {
    const ws = await workspace(emulator);
    const agent = (await ws.api.post('/v1/agents', { name: 'Aurora', identity: { businessName: 'Café Aurora' } })).body.id as string;
    for (const doc of DEMO_TEXTS) expect((await ws.api.post('/v1/knowledge/text', { ...doc, agentId: agent })).status).toBe(202);
    const water = await ws.api.post('/v1/knowledge/text', { ...WATER, agentId: agent });
    await emulator.drain();
    expect((await lexiconOf(ws.workspaceId)).twinnedSources).not.toContain(water.body.id);
    // Its own words find Spanish pages ("agua" in the V60 guide, "máquina" for espresso);
    // "water" and "machine" are its words only in translation. At a twin's weight (0.3)
    // the page came fourth, after three Spanish ones.
    const question = { query: '¿El agua dura daña la máquina?', limit: 4 };
    const lone = (await ws.api.post(`/v1/agents/${agent}/query`, question)).body;
    expect(lone.passages[0]).toMatchObject({ sourceId: water.body.id, lang: 'en' });
    for (const p of lone.passages) expect(p.score > 0 && p.score <= 1).toBe(true);
    // With its Spanish twin the page is no longer alone: the question's own words answer first.
    const agua = await ws.api.post('/v1/knowledge/text', { ...AGUA, agentId: agent });
    await emulator.drain();
    expect((await lexiconOf(ws.workspaceId)).twinnedSources).toEqual(expect.arrayContaining([water.body.id, agua.body.id]));
    const twinned = (await ws.api.post(`/v1/agents/${agent}/query`, question)).body;
    expect(twinned.passages[0]).toMatchObject({ sourceId: agua.body.id, lang: 'es' });
  });

  it("counts a twin only where the scope searched holds it: a page whose translation is another agent's is held in one language for this one (D-1124)", async () => {
    const ws = await workspace(emulator);
    const aurora = (await ws.api.post('/v1/agents', { name: 'Aurora', identity: { businessName: 'Café Aurora' } })).body.id as string;
    const other = (await ws.api.post('/v1/agents', { name: 'Other', identity: { businessName: 'Café Aurora' } })).body.id as string;
    for (const doc of DEMO_TEXTS) expect((await ws.api.post('/v1/knowledge/text', { ...doc, agentId: aurora })).status).toBe(202);
    const water = await ws.api.post('/v1/knowledge/text', { ...WATER, agentId: aurora });
    const agua = await ws.api.post('/v1/knowledge/text', { ...AGUA, agentId: other });
    await emulator.drain();
    // The workspace holds both: the lexicon found them twins, and learned from them.
    expect((await lexiconOf(ws.workspaceId)).twinnedSources).toEqual(expect.arrayContaining([water.body.id, agua.body.id]));
    // Aurora's scope holds the English page only: the Spanish question reaches it through
    // its translations, at the word's own weight. Counted as a twin (0.3), it came fourth.
    const question = { query: '¿El agua dura daña la máquina?', limit: 4 };
    const mine = (await ws.api.post(`/v1/agents/${aurora}/query`, question)).body;
    expect(mine.passages[0]).toMatchObject({ sourceId: water.body.id, lang: 'en' });
    // The other agent's scope holds the Spanish page, in the question's own words.
    const theirs = (await ws.api.post(`/v1/agents/${other}/query`, question)).body;
    expect(theirs.passages[0]).toMatchObject({ sourceId: agua.body.id, lang: 'es' });
  });

  it("ranks first a Spanish question's answer that only English text holds, which it did not rank without the lexicon", async () => {
    const barista = await agentNamed(demo, 'Barista');
    // English only, and the Barista's scope holds none of the shipping twins the lexicon learned from.
    const added = await demo.post('/v1/knowledge/text', {
      title: 'Grinder repairs',
      agentId: barista,
      text: 'Send us your grinder in its original box. We repair it in our workshop and ship it back within ten working days. The return shipping is free, and every repaired grinder comes with a new burr set.',
    });
    await emulator.drain();
    const question = { query: '¿En cuántos días laborables me lo enviáis?', topics: [], limit: 5 };
    const withLexicon = (await demo.post(`/v1/agents/${barista}/query`, question)).body;
    expect(withLexicon.passages[0]).toMatchObject({ sourceId: added.body.id, lang: 'en' });
    const without = await emulator.service.retrieval.search(demoWorkspace, barista, question, { expand: false });
    expect(without.passages.map((p) => p.sourceId)).not.toContain(added.body.id);
    // A question in the documents' own words keeps its answer first either way.
    const own = (await demo.post(`/v1/agents/${barista}/query`, { query: 'How long do repaired grinders take to ship back?' })).body;
    expect(own.passages[0].sourceId).toBe(added.body.id);
    await demo.delete(`/v1/knowledge/sources/${added.body.id}`);
    await emulator.drain();
  });

  it('answers a question of one character, of emoji, of 2,000 characters or in a language the knowledge lacks, never with a 500', async () => {
    const aurora = await agentNamed(demo, 'Aurora');
    for (const query of [
      'a',
      '🙂🙂☕',
      'é',
      '¿?',
      'ship '.repeat(400),
      'Wie spät öffnet die Bar in Ruzafa am Samstag?',
      'Quanto costa la spedizione in Francia?',
    ]) {
      const res = await demo.post(`/v1/agents/${aurora}/query`, { query });
      expect(res.status, query.slice(0, 20)).toBe(200);
      expect(Array.isArray(res.body.passages)).toBe(true);
    }
  });
});

describe('where the lexicon lives', () => {
  it('cuts a document into sections at its headings, not at the prompts and comments of its code (D-1046)', () => {
    const guide = (lang: 'en' | 'es') =>
      [
        lang === 'en' ? '## 3.1. Installing the server' : '## 3.1. Instalar el servidor',
        lang === 'en' ? 'Install the package as root.' : 'Instale el paquete como root.',
        '```sh\n# apt install nginx\n# systemctl enable nginx\n```',
        lang === 'en' ? '## 3.2. Checking it' : '## 3.2. Comprobarlo',
        lang === 'en' ? 'Open the page in a browser.' : 'Abra la página en un navegador.',
      ].join('\n\n');
    // Two sections in each language, as the two headings say (heading, text, code; heading, text).
    for (const lang of ['en', 'es'] as const) expect(sections(guide(lang)).map((s) => s.children.length)).toEqual([3, 2]);
  });
  it('is learned from content alone: the same documents in another order, in another emulator, give the same lexicon byte for byte', async () => {
    const learned = async (host: Emulator, docs: typeof DEMO_TEXTS) => learnedBy(host, await loaded(host, docs));
    const forward = await learned(emulator, DEMO_TEXTS);
    // Another process learns on its own (this one would take what it learned, D-1223).
    const other = await createEmulator({ seed: 3, log: quiet });
    try {
      const reversed = await learned(other, [...DEMO_TEXTS].reverse());
      expect(forward.twins).toBe(6);
      expect(JSON.stringify(reversed)).toBe(JSON.stringify(forward));
    } finally {
      await other.close();
    }
    // The demo's also learned from its bilingual claim: most pairs are the same.
    const demoPairs = new Set((await lexiconOf(demoWorkspace)).pairs.map((p) => `${p.es}:${p.en}`));
    expect(forward.pairs.filter((p) => demoPairs.has(`${p.es}:${p.en}`)).length).toBeGreaterThan(forward.pairs.length * 0.8);
  });

  it('learns once for workspaces holding the same documents: another one takes that lexicon as it is, a different one learns its own (D-1223)', async () => {
    const pool = emulator.service.workers;
    const run = pool.run.bind(pool);
    let learning = 0;
    pool.run = ((...args: Parameters<typeof run>) => {
      if (args[1] === 'learn') learning += 1;
      return run(...args);
    }) as typeof run;
    try {
      const load = async (docs: typeof DEMO_TEXTS) => learnedBy(emulator, await loaded(emulator, docs));
      // Documents no other workspace of this file holds all of, and no more: this process never learned from them.
      const first = await load([...DEMO_TEXTS.slice(0, 4), WATER, AGUA]);
      expect(first.twins).toBe(3);
      expect(learning).toBe(1);
      // The same documents, uploaded in another order: no thread learns, the lexicon is the same.
      expect(await load([AGUA, ...DEMO_TEXTS.slice(0, 4).reverse(), WATER])).toEqual(first);
      expect(learning).toBe(1);
      // One document less: learned again, without what that twin taught.
      const fewer = await load([...DEMO_TEXTS.slice(0, 4), WATER]);
      expect(learning).toBe(2);
      expect(fewer.twins).toBe(2);
      expect(fewer.pairs.map((p) => `${p.es}:${p.en}`)).not.toContain('agu:water');
      expect(first.pairs.map((p) => `${p.es}:${p.en}`)).toContain('agu:water');
    } finally {
      pool.run = run;
    }
  });

  it('hands no lexicon read from a state file to another workspace: a file teaches only the workspace it names (D-1223)', async () => {
    const docs = DEMO_TEXTS.slice(0, 4);
    const pairsOf = async (host: Emulator, workspaceId: string) => (await learnedBy(host, workspaceId)).pairs;
    const named = await loaded(emulator, docs);
    const genuine = await pairsOf(emulator, named);
    expect(genuine.length).toBeGreaterThan(5);
    // A state whose lexicon was written by hand, for sources whose print is the genuine one,
    // loaded into a process that never learned from them.
    const state = (await control.get('/_emulator/state')).body;
    const row = state.tables.knowledge_lexicons.find((r: { workspace_id: string }) => r.workspace_id === named);
    row.data = JSON.stringify({ ...JSON.parse(row.data), pairs: [['zzzz', 'yyyy', 0.9]] });
    const forged = await createEmulator({ seed: 9, log: quiet });
    try {
      const imported = await client(forged).put('/_emulator/state', state);
      expect(imported.status, JSON.stringify(imported.body)).toBe(200);
      expect(await pairsOf(forged, named)).toEqual([{ es: 'zzzz', en: 'yyyy', weight: 0.9 }]);
      // Another workspace of the same documents learns its own.
      expect(await pairsOf(forged, await loaded(forged, docs))).toEqual(genuine);
    } finally {
      await forged.close();
    }
  });

  it('a workspace in one language builds none and ranks exactly as without it', async () => {
    const ws = await workspace(emulator);
    for (const doc of DEMO_TEXTS.filter((_, i) => i % 2 === 0)) await ws.api.post('/v1/knowledge/text', doc);
    await emulator.drain();
    expect(await lexiconOf(ws.workspaceId)).toMatchObject({ twins: 0, pairs: [] });
    const agentId = (await ws.api.post('/v1/agents', { name: 'A', identity: { businessName: 'A' } })).body.id;
    for (const query of ['When does the Ruzafa bar open?', '¿Hacéis envíos a Francia?', 'refund for a damaged bag']) {
      const answered = (await ws.api.post(`/v1/agents/${agentId}/query`, { query })).body;
      const plain = await emulator.service.retrieval.search(ws.workspaceId, agentId, { query, topics: [], limit: 5 }, { expand: false });
      expect(answered).toEqual(plain);
    }
  });

  it('follows the knowledge: deleting a twin learns again without it, and a deleted workspace takes it along', async () => {
    const ws = await workspace(emulator);
    const ids: string[] = [];
    for (const doc of DEMO_TEXTS.slice(0, 4)) ids.push((await ws.api.post('/v1/knowledge/text', doc)).body.id);
    await emulator.drain();
    expect((await lexiconOf(ws.workspaceId)).twins).toBe(2);
    expect((await lexiconOf(ws.workspaceId)).pairs.map((p) => `${p.es}:${p.en}`)).toContain('envi:ship');
    // The Spanish shipping text (third of the demo's texts) goes: only the hours twins are left.
    await ws.api.delete(`/v1/knowledge/sources/${ids[3]}`);
    await emulator.drain();
    const after = await lexiconOf(ws.workspaceId);
    expect(after.twins).toBe(1);
    expect(after.pairs.map((p) => `${p.es}:${p.en}`)).not.toContain('envi:ship');
    await control.delete(`/_emulator/workspaces/${ws.workspaceId}`);
    expect((await control.get(`/_emulator/workspaces/${ws.workspaceId}/lexicon`)).status).toBe(404);
    const rows = await emulator.service.db.selectFrom('knowledge_lexicons').select('workspace_id').where('workspace_id', '=', ws.workspaceId).execute();
    expect(rows).toEqual([]);
  });

  it('answers a question asked as the last source settles as it will once the lexicon is learned again: the lookup waits for the job (D-1142)', async () => {
    const ws = await workspace(emulator);
    const agent = (await ws.api.post('/v1/agents', { name: 'Aurora', identity: { businessName: 'Café Aurora' } })).body.id as string;
    const ids: string[] = [];
    for (const doc of DEMO_TEXTS.slice(0, 4)) ids.push((await ws.api.post('/v1/knowledge/text', { ...doc, agentId: agent })).body.id);
    await emulator.drain();
    expect((await lexiconOf(ws.workspaceId)).twins).toBe(2);
    const question = { query: '¿Cuánto tarda en llegar mi pedido?', limit: 3 };
    // The job that learns again without the Spanish shipping text is queued and cannot run yet.
    await emulator.service.pause();
    const answered: string[] = [];
    let view: Promise<{ twins: number }>;
    let answer: Promise<unknown>;
    try {
      expect((await ws.api.delete(`/v1/knowledge/sources/${ids[3]}`)).status).toBe(200);
      view = lexiconOf(ws.workspaceId).finally(() => answered.push('lexicon'));
      answer = ws.api.post(`/v1/agents/${agent}/query`, question).finally(() => answered.push('query'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(answered).toEqual([]);
    } finally {
      await emulator.service.start();
    }
    expect((await view).twins).toBe(1);
    const waited = (await answer) as { status: number; body: unknown };
    expect(waited.status).toBe(200);
    await emulator.drain();
    expect((await ws.api.post(`/v1/agents/${agent}/query`, question)).body).toEqual(waited.body);
  });

  it('waits at most lexiconWaitMs, then answers with the lexicon learned before (D-1142)', async () => {
    await expect(createEmulator({ lexiconWaitMs: -1, log: quiet })).rejects.toThrow(/lexiconWaitMs/);
    const other = await createEmulator({ seed: 9, lexiconWaitMs: 100, log: quiet });
    try {
      const ws = await workspace(other);
      const ids: string[] = [];
      for (const doc of DEMO_TEXTS.slice(0, 4)) ids.push((await ws.api.post('/v1/knowledge/text', doc)).body.id);
      await other.drain();
      await other.service.pause();
      try {
        expect((await ws.api.delete(`/v1/knowledge/sources/${ids[3]}`)).status).toBe(200);
        expect((await client(other).get(`/_emulator/workspaces/${ws.workspaceId}/lexicon`)).body.twins).toBe(2);
      } finally {
        await other.service.start();
      }
      await other.drain();
      expect((await client(other).get(`/_emulator/workspaces/${ws.workspaceId}/lexicon`)).body.twins).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('survives a state export and import, and a reset learns the same again', async () => {
    const before = await lexiconOf(demoWorkspace);
    const state = (await control.get('/_emulator/state')).body;
    expect(state.tables.knowledge_lexicons.some((r: { workspace_id: string }) => r.workspace_id === demoWorkspace)).toBe(true);
    const other = await createEmulator({ seed: 9, log: quiet });
    try {
      expect((await client(other).put('/_emulator/state', state)).status).toBe(200);
      expect(await (await client(other).get(`/_emulator/workspaces/${demoWorkspace}/lexicon`)).body).toEqual(
        await (await control.get(`/_emulator/workspaces/${demoWorkspace}/lexicon`)).body,
      );
    } finally {
      await other.close();
    }
    await control.post('/_emulator/reset', {});
    await emulator.drain();
    expect(await lexiconOf(demoWorkspace)).toEqual(before);
  });
});
