import { afterAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import type { Embedder } from '../../src/knowledge/ports.js';
import { quiet, workspace } from '../support/emulator.js';
import { createAgent, ingest } from './support.js';

// `/query` with a plugged embedder (D-990, D-1219): the words decide, the vectors only
// order what the words cannot separate (passages of the same evidence) and fill in past
// the passages the words support. Fake embedders, deterministic and in-process.

/** Shown scores of the same evidence are 0.000001 apart (D-1204): a wider gap is the words' own. */
const SHOWN_APART = 1.5e-6;

const ROUTER = [
  { title: 'Factory reset', text: 'To reset the router to its factory settings, hold the reset button for ten seconds until every light blinks.' },
  { title: 'Admin password', text: 'The admin password of the router is printed on the label under the router. Change the password after the first login.' },
  { title: 'Wireless name', text: 'The wireless network name and its password can be changed on the admin page, under Wireless settings.' },
  { title: 'Firmware updates', text: 'The router checks for firmware updates every night and installs them at 3:00. A manual update is on the admin page.' },
  { title: 'Guest network', text: 'A guest network gives visitors internet access without reaching your own devices. Turn it on under Wireless settings.' },
  {
    title: 'Parental control',
    text: 'Parental control limits the hours a device can reach the internet. Choose the device, then the hours, on the admin page.',
  },
  { title: 'Port forwarding', text: 'Port forwarding sends outside connections on one port to a device at home, for a game server or a camera.' },
  { title: 'Lights', text: 'A steady green light means the router is online; a blinking orange light means it is still starting or updating.' },
  { title: 'Cable', text: 'Connect the router to the wall socket with the grey cable, and a computer to a yellow port with a network cable.' },
  { title: 'Speed', text: 'For the best wireless speed, place the router high, in the open, away from the microwave and thick walls.' },
];
/** Questions with the source each asks for (an index into `ROUTER`). */
const QUESTIONS: [string, number][] = [
  ['How do I reset the router to factory settings?', 0],
  ['Where is the admin password of the router?', 1],
  ['How do I change the wireless network name?', 2],
  ['When does the router install firmware updates?', 3],
  ['How do visitors get internet access?', 4],
  ['What does a blinking orange light mean?', 7],
  ['Which cable goes to the wall socket?', 8],
  ['How do I get the best wireless speed?', 9],
];

interface Passage {
  sourceId: string;
  score: number;
}

/** Which of `texts` a chunk holds (chunks here are whole sources). */
const sourceOf = (chunk: string, texts: string[]) => texts.findIndex((t) => chunk.includes(t));

function unit(values: number[]): Float32Array {
  const v = Float32Array.from(values);
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

/**
 * An embedder that knows each source by its text and answers a question with the vector
 * `wanted(question)` gives over the sources: the passage dimensions weigh as it says.
 */
function tableEmbedder(id: string, texts: string[], wanted: (question: string) => number[]): Embedder {
  const dims = texts.length + 1;
  return {
    id,
    dimensions: dims,
    async embed(input) {
      return input.map((text) => {
        const k = sourceOf(text, texts);
        if (k >= 0) return unit(Array.from({ length: dims }, (_, d) => (d === k ? 1 : d === texts.length ? 0.05 : 0)));
        return unit([...wanted(text), 0.05]);
      });
    },
  };
}

/** Deterministic noise from the text: the same text, the same vector. */
function randomEmbedder(seed: number): Embedder {
  return {
    id: `random-${seed}`,
    dimensions: 16,
    async embed(input) {
      return input.map((text) => {
        let h = 2166136261 ^ seed;
        for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
        return unit(
          Array.from({ length: 16 }, () => {
            h ^= h << 13;
            h ^= h >>> 17;
            h ^= h << 5;
            return (h >>> 0) / 4294967296 - 0.5;
          }),
        );
      });
    },
  };
}

const emulators: Emulator[] = [];
afterAll(() => Promise.all(emulators.map((e) => e.close())));

/** A fresh emulator (same seed: the same ids) holding `sources` for one agent; `ask` answers the passages. */
async function knowledge(sources: { title: string; text: string }[], embedder?: Embedder) {
  const emulator = await createEmulator({ log: quiet, seed: 31, ...(embedder && { embedder }) });
  emulators.push(emulator);
  const ws = await workspace(emulator);
  const agentId = await createAgent(ws.api, 'Ada', 'Home network');
  const ids = await ingest(
    ws.api,
    ws.control,
    sources.map((s) => ({ ...s, agentId })),
  );
  const ask = async (query: string, limit = 10): Promise<Passage[]> => {
    const res = await ws.api.post(`/v1/agents/${agentId}/query`, { query, limit });
    expect(res.status).toBe(200);
    return res.body.passages;
  };
  const rrf = async (query: string) =>
    (await emulator.service.retrieval.search(ws.workspaceId, agentId, { query, topics: [], limit: 10 }, { vectors: 'rrf' })).passages;
  return { ids, ask, rrf };
}

/** Pairs (a above b) the words separate: a's score above b's by more than the display's step. */
function separatedPairs(words: Passage[]): [string, string][] {
  const pairs: [string, string][] = [];
  words.forEach((a, i) => {
    for (const b of words.slice(i + 1)) if (a.score > b.score + SHOWN_APART) pairs.push([a.sourceId, b.sourceId]);
  });
  return pairs;
}

/** The pairs the words separate that `ranked` puts the other way round (or drops the upper one of). */
const inverted = (pairs: [string, string][], ranked: string[]) =>
  pairs.filter(([a, b]) => ranked.includes(b) && (!ranked.includes(a) || ranked.indexOf(a) > ranked.indexOf(b)));

// The words alone, as a user without an embeddings endpoint gets them.
const words = await knowledge(ROUTER);
const byWords = new Map<string, Passage[]>();
for (const [q] of QUESTIONS) byWords.set(q, await words.ask(q));
const idOf = (k: number) => words.ids[k]!;

// The worst embedder for these questions: it ranks the words' passages in reverse and
// puts the passages the words did not find first of all.
const adversarial = tableEmbedder(
  'adversarial',
  ROUTER.map((s) => s.text),
  (question) => {
    const found = (byWords.get(question) ?? []).map((p) => words.ids.indexOf(p.sourceId));
    return ROUTER.map((_, k) => (found.includes(k) ? 1 + found.indexOf(k) : 100));
  },
);

describe('/query with a plugged embedder: the words decide where they separate passages (D-990, D-1219)', () => {
  it('an adversarial embedder keeps every order the words separate, every answer at its rank, and every score', async () => {
    const fused = await knowledge(ROUTER, adversarial);
    let checked = 0;
    let rrfInverted = 0;
    for (const [question, answer] of QUESTIONS) {
      const plain = byWords.get(question)!;
      const got = await fused.ask(question);
      const pairs = separatedPairs(plain);
      checked += pairs.length;
      const ranked = got.map((p) => p.sourceId);
      expect(inverted(pairs, ranked), question).toEqual([]);
      // The answer the words find is where they put it (the words separate it here).
      expect(ranked.indexOf(idOf(answer)), question).toBe(plain.findIndex((p) => p.sourceId === idOf(answer)));
      // A passage the words support keeps its score (up to the display's step between equal evidence).
      for (const p of plain) {
        const q = got.find((g) => g.sourceId === p.sourceId)!;
        expect(Math.abs(q.score - p.score)).toBeLessThan(SHOWN_APART * plain.length);
      }
      // Passages only the vectors found come after every passage the words support.
      expect(ranked.slice(0, plain.length).sort()).toEqual(plain.map((p) => p.sourceId).sort());
      rrfInverted += inverted(
        pairs,
        (await fused.rrf(question)).map((p) => p.sourceId),
      ).length;
    }
    expect(checked).toBeGreaterThan(50);
    // The superseded reciprocal-rank fusion (D-306) does lose these orders to the same embedder.
    expect(rrfInverted).toBeGreaterThan(10);
  });

  it('a random embedder, whatever its seed, keeps every order the words separate and every answer', async () => {
    for (const seed of [1, 2, 3]) {
      const fused = await knowledge(ROUTER, randomEmbedder(seed));
      for (const [question, answer] of QUESTIONS) {
        const plain = byWords.get(question)!;
        const ranked = (await fused.ask(question)).map((p) => p.sourceId);
        expect(inverted(separatedPairs(plain), ranked), `${seed}: ${question}`).toEqual([]);
        expect(ranked.indexOf(idOf(answer))).toBe(plain.findIndex((p) => p.sourceId === idOf(answer)));
      }
    }
  });

  it('a question the words cannot answer is refused with the vectors too', async () => {
    const fused = await knowledge(ROUTER, adversarial);
    for (const question of ['How do I install Kubernetes on the router?', 'Which Minecraft server runs best?']) {
      expect(await words.ask(question)).toEqual([]);
      expect(await fused.ask(question)).toEqual([]);
    }
  });
});

describe('/query with a helpful embedder: the vectors fix what the words leave open', () => {
  // Two ways to reset the router, each holding the question's words as often, at the same length:
  // the same evidence, which the words alone order by chunk.
  const RESETS = [
    { title: 'Router reset', text: 'Reset the router: unplug the router power cable and wait thirty seconds.' },
    { title: 'Router reset', text: 'Reset the router: press the router pinhole button and wait thirty seconds.' },
    { title: 'Hostname', text: 'The hostname is kept in /etc/hostname; edit it and reboot.' },
    { title: 'Computer care', text: 'Computer care: wipe the computer screen with a dry cloth every week.' },
  ];
  const texts = RESETS.map((s) => s.text);
  // It knows that "reset" means pulling the plug, and that "rename the computer" means its hostname.
  const helpful = tableEmbedder('helpful', texts, (question) =>
    /reset/.test(question) ? [1, 0.2, 0, 0] : /rename/.test(question) ? [0, 0, 1, 0.3] : [0, 0, 0, 0],
  );

  it('orders a tie of the words by the vectors', async () => {
    const words = await knowledge(RESETS);
    const fused = await knowledge(RESETS, helpful);
    const question = 'How do I reset the router?';
    const plain = await words.ask(question);
    // The words cannot separate them (the same evidence): their tie is ordered by text (D-1204).
    expect(plain.map((p) => p.sourceId)).toEqual([words.ids[1], words.ids[0]]);
    expect(plain[0]!.score - plain[1]!.score).toBeLessThan(SHOWN_APART);
    const got = await fused.ask(question);
    expect(got.map((p) => p.sourceId).slice(0, 2)).toEqual([fused.ids[0], fused.ids[1]]);
    expect(got[0]!.score).toBeGreaterThan(got[1]!.score);
  });

  it('finds a passage that shares no word with the question, after those that do', async () => {
    const words = await knowledge(RESETS);
    const fused = await knowledge(RESETS, helpful);
    const question = 'How do I rename the computer?';
    expect((await words.ask(question)).map((p) => p.sourceId)).toEqual([words.ids[3]]);
    const got = await fused.ask(question);
    // Then the rest of what the vectors find, nearest first, each below what the words support.
    expect(got.map((p) => p.sourceId).slice(0, 2)).toEqual([fused.ids[3], fused.ids[2]]);
    expect(got[1]!.score).toBeGreaterThan(0);
    expect(got[1]!.score).toBeLessThan(got[0]!.score);
  });
});
