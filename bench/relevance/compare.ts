import { readFileSync } from 'node:fs';

/** One question of a `BENCH_RELEVANCE_REPORT` file, as far as a comparison reads it. */
export interface ReportRow {
  corpus: string;
  id: string;
  kind: string;
  /** Withheld for a blind corpus. */
  text?: string;
  rank: number;
  unrefusedRank: number;
  /** A blind corpus's report holds a digest of them instead. */
  scores?: number[];
  scoresDigest?: string;
}

/** Reciprocal rank: what a question adds to MRR@10 (a miss or a refusal, 0). */
const rr = (rank: number): number => (rank > 0 && rank <= 10 ? 1 / rank : 0);

/**
 * What moved between an earlier report and this run, per corpus: how many questions rank
 * better, worse, or the same but score otherwise, and which (for a blind corpus only the
 * counts, so that a comparison never shows its questions). `blind` names the blind corpora.
 */
export function compareReports(before: ReportRow[], after: ReportRow[], blind: ReadonlySet<string>): string[] {
  const old = new Map(before.map((r) => [`${r.corpus}\n${r.id}`, r]));
  const lines: string[] = [];
  for (const corpus of [...new Set(after.map((r) => r.corpus))]) {
    const moved: string[] = [];
    let better = 0;
    let worse = 0;
    let rescored = 0;
    let missing = 0;
    for (const now of after.filter((r) => r.corpus === corpus)) {
      const was = old.get(`${corpus}\n${now.id}`);
      if (!was) {
        missing += 1;
        continue;
      }
      const delta = rr(now.rank) - rr(was.rank);
      const rescore = JSON.stringify([was.scores, was.scoresDigest]) !== JSON.stringify([now.scores, now.scoresDigest]);
      if (delta === 0 && was.unrefusedRank === now.unrefusedRank && !rescore) continue;
      if (delta > 0) better += 1;
      else if (delta < 0) worse += 1;
      else rescored += 1;
      if (!blind.has(corpus))
        moved.push(`  ${now.id} (${now.kind}) rank ${was.rank} -> ${now.rank}, unrefused ${was.unrefusedRank} -> ${now.unrefusedRank}: ${now.text ?? ''}`);
    }
    const counts = `${better} better, ${worse} worse, ${rescored} otherwise moved${missing ? `, ${missing} not in the earlier report` : ''}`;
    lines.push(`${corpus}${blind.has(corpus) ? ' [blind: counts only]' : ''}: ${counts}`, ...moved);
  }
  return lines;
}

/** The rows of a report file. */
export function readReport(path: string): ReportRow[] {
  return JSON.parse(readFileSync(path, 'utf8')) as ReportRow[];
}
