/**
 * Captures what a fusion rule needs, per development corpus, so that rules can be
 * compared offline in seconds (`fusion-rules.ts`): every chunk's section, each
 * question's lexical ranking as `/query` scores it (100 deep, words alone, not refused),
 * whether `/query` refuses it, and the cosine of the question to every chunk through the
 * embeddings endpoint of `BENCH_RELEVANCE_EMBEDDINGS_URL`. Every corpus but the blind
 * ones, which are refused here. `BENCH_RELEVANCE_CORPORA` restricts;
 * `FUSION_DATA=dir` (default the temp folder) is where `<corpus>.fusion.json` goes.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allCorpora } from '../corpora/index.js';
import { embeddingsFromEnv } from '../embeddings.js';
import { evaluate, type Ingested } from '../evaluate.js';

const DEPTH = 100;
const OUT = process.env.FUSION_DATA ?? tmpdir();
const ONLY = process.env.BENCH_RELEVANCE_CORPORA?.split(',').filter(Boolean);

const embeddings = await embeddingsFromEnv();
if (!embeddings) throw new Error('set BENCH_RELEVANCE_EMBEDDINGS_URL (and _MODEL): this capture needs the vectors');
const { embedder } = embeddings;

async function capture(name: string, { emulator, workspaceId, agentId, questions, chunks }: Ingested): Promise<void> {
  const key = (sourceId: string, text: string) => `${sourceId}\u0000${text}`;
  const indexOf = new Map(chunks.map((c, i) => [key(c.sourceId, c.text), i]));
  const vectors: Float32Array[] = [];
  for (let i = 0; i < chunks.length; i += 64) vectors.push(...(await embedder.embed(chunks.slice(i, i + 64).map((c) => c.text))));
  const rows = [];
  for (const question of questions) {
    const input = { query: question.text, topics: [], limit: DEPTH };
    const lexical = await emulator.service.retrieval.search(workspaceId, agentId, input, { refuse: false, vectors: false });
    const answered = await emulator.service.retrieval.search(workspaceId, agentId, { ...input, limit: 10 }, { vectors: false });
    const [q] = await embedder.embed([question.text]);
    const cos = vectors.map((v) => {
      let s = 0;
      for (let d = 0; d < v.length; d++) s += v[d]! * q![d]!;
      return Math.round(s * 1e5) / 1e5;
    });
    rows.push({
      lexical: lexical.passages.map((p) => [indexOf.get(key(p.sourceId, p.text)) ?? -1, p.score]),
      refused: answered.passages.length === 0,
      cos,
    });
  }
  const file = join(OUT, `${name}.fusion.json`);
  writeFileSync(file, JSON.stringify({ chunks: chunks.map((c) => ({ section: c.section, lang: c.lang })), questions, rows }));
  console.log(`${name}: ${chunks.length} chunks, ${questions.length} questions -> ${file}`);
}

for (const corpus of await allCorpora()) {
  if (ONLY ? !ONLY.includes(corpus.name) : corpus.role === 'blind') continue;
  if (corpus.role === 'blind') throw new Error(`${corpus.name} is blind: the blind corpora run once per candidate, through the bench, at the end`);
  if (!corpus.installed()) {
    console.log(`${corpus.name}: not installed (apt-get install -y ${corpus.packages.join(' ')})`);
    continue;
  }
  const t0 = Date.now();
  await evaluate(corpus, { embedder, inspect: (ingested) => capture(corpus.name, ingested) });
  console.log(`  ${corpus.name} in ${Math.round((Date.now() - t0) / 1000)} s`);
}
