import { readdirSync } from 'node:fs';
import { blindCorpora } from '../corpora/blind.js';

const BLIND: ReadonlySet<string> = new Set(blindCorpora.map((c) => c.name));

/** Whether a corpus is one of the blind ones: never captured, never replayed (they run once per candidate, through the bench). */
function isBlindCorpus(name: string): boolean {
  return BLIND.has(name);
}

/**
 * The corpora whose chunks `BENCH_RELEVANCE_CHUNKS=dir` captured in `dir`, by name, in
 * order; a blind corpus's capture (one an older bench wrote) is left out and named on
 * stderr, so that an experiment replayed on every capture never prints a blind
 * corpus's figures for a candidate (bench/relevance/README.md).
 */
export function capturedCorpora(dir: string): string[] {
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.chunks.json'))
    .map((f) => f.slice(0, -'.chunks.json'.length))
    .sort();
  const blind = names.filter(isBlindCorpus);
  if (blind.length) console.error(`left out, blind: ${blind.join(', ')} (delete their captures in ${dir})`);
  return names.filter((n) => !isBlindCorpus(n));
}
