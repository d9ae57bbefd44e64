/**
 * The labelled questions as people write them (D-1061): each question of the non-blind
 * corpora rewritten in ways that keep what it asks (all lowercase, no question marks, a
 * greeting, a courtesy, a plea, "I'm new to Linux.", "(Debian 12)", shouted...), asked
 * through `/query` as the benchmark asks it. Prints, per corpus, language and rewriting:
 * answerable questions refused, MRR@10, no-answer questions refused, and how many
 * questions' outcome (refused or not; the rank of an answerable one) differs from the
 * question as labelled. A rewriting that refuses what the question itself gets answered is
 * a rule that reads how a question is written as what it asks.
 *
 *   node --import tsx bench/relevance/experiments/rewritten.ts                 # all non-blind corpora
 *   CORPORA=kernel-handbook SHOW=5 REWRITINGS=urgent,lower node --import tsx bench/relevance/experiments/rewritten.ts
 *
 * `SHOW=n` lists up to n changed questions per line. Blind corpora are never asked: their
 * questions are run once per candidate by `npm run bench -- relevance`, and no more.
 */
import { allCorpora } from '../corpora/index.js';
import { evaluate, LIMIT } from '../evaluate.js';
import { rankOf, type Question } from '../metrics.js';

type Rewrite = (q: string) => string;

const STOP = new Set('how do i can you the a an to of in on for with my is what where which why when does it be this that and or from by'.split(' '));

/** The question with its longest word (of six letters or more) mistyped by `typo`: a letter dropped or two swapped, as a hurried hand does. */
const mistyped = (typo: (w: string) => string) => (q: string) => {
  const longest = (q.match(/\p{L}{6,}/gu) ?? []).reduce((a, b) => (b.length > a.length ? b : a), '');
  return longest ? q.replace(longest, typo(longest)) : q;
};
const dropped = mistyped((w) => w.slice(0, -2) + w.slice(-1));
// The key right of a letter on a QWERTY keyboard (its row's last key: the one left of it).
const RIGHT: Record<string, string> = Object.fromEntries(
  ['qwertyuiop', 'asdfghjklñ', 'zxcvbnm'].flatMap((row) => [...row].map((c, i) => [c, row[i + 1] ?? row[i - 1]!])),
);
const struck = mistyped((w) => {
  const i = Math.floor(w.length / 2);
  return w.slice(0, i) + (RIGHT[w[i]!.toLowerCase()] ?? w[i]) + w.slice(i + 1);
});
const doubled = mistyped((w) => {
  const i = Math.floor(w.length / 2);
  return w.slice(0, i) + w[i] + w.slice(i);
});
/** Both of the question's two longest words (six letters or more) with their middle letters swapped. */
const twoSwapped = (q: string) => {
  const words = [...new Set(q.match(/\p{L}{6,}/gu) ?? [])].sort((a, b) => b.length - a.length).slice(0, 2);
  return words.reduce((text, w) => {
    const i = Math.floor(w.length / 2);
    return text.replace(w, w.slice(0, i - 1) + w[i] + w[i - 1] + w.slice(i + 1));
  }, q);
};
const swapped = mistyped((w) => {
  const i = Math.floor(w.length / 2);
  return w.slice(0, i - 1) + w[i] + w[i - 1] + w.slice(i + 1);
});

const ENGLISH: Record<string, Rewrite> = {
  lower: (q) => q.toLowerCase(),
  nopunct: (q) => q.replace(/[?!]+/gu, ''),
  hi: (q) => `Hi! ${q}`,
  thanks: (q) => `${q} Thanks in advance.`,
  newbie: (q) => `I'm new to Linux. ${q}`,
  tellme: (q) => `Can you tell me ${q[0]!.toLowerCase()}${q.slice(1)}`,
  laptop: (q) => `${q} I'm on a laptop.`,
  keywords: (q) =>
    q
      .replace(/[?!.,]/gu, '')
      .split(/\s+/u)
      .filter((w) => !STOP.has(w.toLowerCase()))
      .join(' '),
  quick: (q) => `Quick question: ${q}`,
  smiley: (q) => `Hey, ${q} :)`,
  version: (q) => `${q} (Debian 12)`,
  urgent: (q) => `URGENT!!! ${q}`,
  help: (q) => `PLEASE HELP! ${q} I've been stuck for hours.`,
  email: (q) => `Hello,\n\n${q}\n\nThanks,\nJohn`,
  named: (q) => `Hi Sam! ${q}`,
  emoji: (q) => `${q} 🙏`,
  phone: (q) => `${q}\n\nSent from my iPhone`,
  url: (q) => `${q} (I read https://wiki.debian.org/FAQ but it did not help)`,
  link: (q) => `${q} https://wiki.debian.org/FAQ`,
  read: (q) => `${q} (I read the wiki but it did not help)`,
  code: (q) => `${q} I already tried \`sudo apt update\`.`,
  markdown: (q) => `**${q}**`,
  signature: (q) => `${q}\n\n-- \nJohn Smith\nSystems Administrator, Initech`,
  boss: (q) => `My boss asked me to look into this today. ${q}`,
  typo: dropped,
  swap: swapped,
  key: struck,
  double: doubled,
  twotypos: twoSwapped,
  re: (q) => `Re: ${q}`,
};
const SPANISH: Record<string, Rewrite> = {
  lower: (q) => q.toLowerCase(),
  nopunct: (q) => q.replace(/[¿?¡!]/gu, ''),
  noaccents: (q) =>
    q
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/gu, '')
      .normalize('NFC'),
  hola: (q) => `Hola, ${q}`,
  gracias: (q) => `${q} Gracias de antemano.`,
  newbie: (q) => `Soy nuevo en Linux. ${q}`,
  laptop: (q) => `${q} Uso un portátil.`,
  version: (q) => `${q} (Debian 12)`,
  urgente: (q) => `¡URGENTE! ${q}`,
  email: (q) => `Buenos días:\n\n${q}\n\nUn saludo,\nMaría`,
  named: (q) => `¡Hola, Sam! ${q}`,
  phone: (q) => `${q}\n\nEnviado desde mi iPhone`,
  boss: (q) => `Mi jefe me ha pedido que lo mire hoy. ${q}`,
  typo: dropped,
  swap: swapped,
  key: struck,
  double: doubled,
  twotypos: twoSwapped,
  chat: (q) =>
    q
      .toLowerCase()
      .normalize('NFD')
      .replace(/[\u0300-\u0302\u0304-\u036f]/gu, '')
      .normalize('NFC')
      .replace(/[¿?¡!]/gu, ''),
};

const only = process.env.CORPORA?.split(',').filter(Boolean);
const chosen = process.env.REWRITINGS?.split(',').filter(Boolean);
const show = Number(process.env.SHOW ?? 0);

for (const corpus of await allCorpora()) {
  if (corpus.role === 'blind' || (only && !only.includes(corpus.name))) continue;
  await evaluate(corpus, {
    inspect: async ({ emulator, workspaceId, agentId, questions, chunks }) => {
      const sectionOf = new Map(chunks.map((c) => [c.sourceId, c.section]));
      const ask = async (q: Question, text: string) => {
        const answer = await emulator.service.retrieval.search(workspaceId, agentId, { query: text, topics: [], limit: LIMIT });
        const ranked = answer.passages.map((p) => sectionOf.get(p.sourceId)!);
        return { refused: answer.passages.length === 0, rank: rankOf(q, ranked) };
      };
      for (const [lang, rewrites] of [
        ['en', ENGLISH],
        ['es', SPANISH],
      ] as const) {
        const asked = questions.filter((q) => q.lang === lang);
        if (!asked.length) continue;
        const labelled = new Map<string, { refused: boolean; rank: number }>();
        for (const q of asked) labelled.set(q.id, await ask(q, q.text));
        const line = (name: string, outcomes: Map<string, { refused: boolean; rank: number }>, changed: string[]) => {
          const answerable = asked.filter((q) => q.kind !== 'no-answer');
          const none = asked.filter((q) => q.kind === 'no-answer');
          const mrr = answerable.reduce((s, q) => s + (outcomes.get(q.id)!.rank ? 1 / outcomes.get(q.id)!.rank : 0), 0) / Math.max(1, answerable.length);
          const refused = (qs: Question[]) => qs.filter((q) => outcomes.get(q.id)!.refused).length;
          console.log(
            `${corpus.name.padEnd(19)} ${lang} ${name.padEnd(9)} answerable ${answerable.length}, refused ${refused(answerable)}, MRR ${mrr.toFixed(3)} | no answer ${none.length}, refused ${refused(none)} | changed ${changed.length}`,
          );
          for (const c of changed.slice(0, show)) console.log(`      ${c}`);
        };
        line('labelled', labelled, []);
        for (const [name, rewrite] of Object.entries(rewrites)) {
          if (chosen && !chosen.includes(name)) continue;
          const outcomes = new Map<string, { refused: boolean; rank: number }>();
          const changed: string[] = [];
          for (const q of asked) {
            const text = rewrite(q.text);
            const now = await ask(q, text);
            outcomes.set(q.id, now);
            const before = labelled.get(q.id)!;
            const say = (o: { refused: boolean; rank: number }) => (o.refused ? 'refused' : q.kind === 'no-answer' ? 'answered' : String(o.rank));
            if (before.refused !== now.refused || (q.kind !== 'no-answer' && before.rank !== now.rank))
              changed.push(`${q.kind} ${say(before)} -> ${say(now)}: ${JSON.stringify(text)}`);
          }
          line(name, outcomes, changed);
        }
      }
    },
  });
}
