/**
 * The paraphrased questions of the development set that the chosen approach does not rank
 * first: the section each wants and the two ranked first (headings), to read what fails.
 */
import { CHOSEN } from './approaches.js';
import { capture, loadQuestions } from './data.js';
import { distinctSections, rankOf } from '../metrics.js';

const questions = loadQuestions();
const { chunks } = await capture(questions);
const retrieve = CHOSEN.build(chunks);
const headOf = (section: string) => {
  const c = chunks.find((x) => x.section === section);
  return c ? `${c.title} | ${c.text.split('\n').find((l) => l.startsWith('#')) ?? ''}` : '?';
};
for (const q of questions.filter((q) => q.kind === 'paraphrased')) {
  const { positions } = retrieve(q.text, 10);
  const ranked = distinctSections(positions.map((i) => chunks[i]!.section));
  const rank = rankOf(
    q,
    positions.map((i) => chunks[i]!.section),
  );
  if (rank === 1) continue;
  console.log(`\n[${q.id} ${q.lang} rank ${rank}] ${q.text}`);
  console.log(`   want: ${q.relevant.map(headOf).join(' || ')}`);
  console.log(`   got:  ${ranked.slice(0, 2).map(headOf).join(' || ')}`);
}
