import { sha256Hex } from '../../src/platform/crypto.js';
import { analyzeChunk, hasHeading } from '../../src/text/analyze.js';
import { detectDocumentLanguage } from '../../src/text/detect-language.js';
import { chunkMarkdown } from '../../src/knowledge/pipeline/chunk.js';
import { embedText } from '../../src/knowledge/pipeline/embedder.js';
import { extractText } from '../../src/knowledge/pipeline/extract.js';
import { summarize } from '../../src/knowledge/pipeline/summary.js';
import { loadTokenizer } from '../../src/knowledge/pipeline/tokens.js';
import { fmt } from '../support.js';
import { corpusInstalled, INSTALL_HINT } from '../relevance/corpora/reference-reader.js';
import { heldOutDocuments } from './debian.js';

const ROUNDS = Number(process.env.BENCH_INGEST_ROUNDS ?? 3);
const STAGES = ['extract', 'language', 'chunk', 'analyze', 'tokens', 'summary', 'hash', 'vectors'] as const;
type Stage = (typeof STAGES)[number];

const cpuMs = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/**
 * Where the pipeline's CPU goes (`BENCH_INGEST_ONLY=stages`): the held-out-shaped pages
 * through each stage of `prepareDocument` in this process, on one thread, without the
 * server, the pool or the store; CPU time per stage (the process's, so V8's helper
 * threads count too), each round in a warm process. Run under tsx over the sources, so
 * without the bundle's lazy listener maps (D-1051): its extraction costs about 40% more than
 * with them (bench/ingest/README.md, 2026-12-03). For a profile: `node --import tsx --cpu-prof bench/run.ts ingest`.
 */
export async function runStages(): Promise<void> {
  if (!corpusInstalled()) {
    console.log(`pipeline stages skipped: ${INSTALL_HINT}`);
    return;
  }
  const docs = heldOutDocuments();
  const tokenizer = await loadTokenizer();
  console.log(`pipeline stages: ${docs.length} held-out-shaped pages, one thread, CPU ms per round`);
  for (let r = 0; r < ROUNDS; r++) {
    const ms = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
    let t = 0;
    const lap = (stage: Stage) => {
      const now = cpuMs();
      ms[stage] += now - t;
      t = now;
    };
    for (const doc of docs) {
      t = cpuMs();
      const { text, title: found } = await extractText('html', Buffer.from(doc.html));
      lap('extract');
      const title = found ?? doc.key;
      const lang = detectDocumentLanguage(text);
      lap('language');
      const chunks = await chunkMarkdown(text, tokenizer);
      lap('chunk');
      const headed = hasHeading(text);
      for (const c of chunks) analyzeChunk(c.text, title, lang, headed);
      lap('analyze');
      tokenizer.count(text);
      lap('tokens');
      summarize({ kind: 'upload', format: 'html', title, lang, text });
      lap('summary');
      sha256Hex(`${title}\n${text}`);
      lap('hash');
      for (const c of chunks) embedText(c.text);
      lap('vectors');
    }
    const total = STAGES.reduce((n, s) => n + ms[s], 0);
    console.log(`  round ${r + 1}: ${fmt(total, 0)} ms; ${STAGES.map((s) => `${s} ${fmt(ms[s], 0)}`).join(', ')}`);
  }
}
