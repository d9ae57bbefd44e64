import type { Kysely } from 'kysely';
import type { Database } from '../db/schema/index.js';
import type { Job } from '../jobs/queue.js';
import type { Clock } from '../platform/clock.js';
import { storedJson } from '../platform/stored.js';
import { iso } from '../platform/time.js';
import { otherLanguage, type Language } from '../text/language.js';
import type { TranslateJobPayload } from '../projects/translate-job.js';
import type { ProjectAccess } from './ports.js';
import { TEXT_FIELDS, textOf, type PageTexts, type TextField } from './page-texts.js';
import type { Translator } from './translator.js';
import { StoredBodySchema, StoredEditorialSchema, StoredMachineTextsSchema, StoredSeoSchema } from './pages.schema.js';

interface Work {
  pageId: string;
  field: TextField;
  source: string;
}

function textsOf(row: { id: string; editorial: string; seo: string; body: string }): PageTexts {
  const at = (column: string) => ({ table: 'pages', row: row.id, column });
  return {
    editorial: storedJson(StoredEditorialSchema, row.editorial, at('editorial')),
    seo: storedJson(StoredSeoSchema, row.seo, at('seo')),
    body: storedJson(StoredBodySchema, row.body, at('body')),
  };
}

const machineTexts = (row: { id: string; machine_texts: string }) =>
  new Set<string>(storedJson(StoredMachineTextsSchema, row.machine_texts, { table: 'pages', row: row.id, column: 'machine_texts' }));

/** A text of `lang` the owner has not written: empty, or the translator's own. */
function open(texts: PageTexts, machine: Set<string>, field: TextField, lang: string): boolean {
  const value = textOf(texts, field)[lang as Language];
  return value === '' || machine.has(`${field}.${lang}`);
}

/**
 * The translation job: fills the texts of `locale` the owner has not written on the
 * site's pages (or one page), from the other language. The translator runs outside
 * any transaction; the write then keeps only translations whose source is unchanged
 * and whose target the owner has not written meanwhile, so a late or repeated run
 * never overwrites the owner.
 */
export async function runTranslation(
  deps: { db: Kysely<Database>; clock: Clock; translator: Translator; projects: ProjectAccess },
  job: Job<TranslateJobPayload>,
): Promise<void> {
  const { projectId, locale, pageId } = job.payload;
  const project = await deps.projects.getProject(job.workspaceId, projectId);
  if (!project?.locales.includes(locale)) return;
  const from = otherLanguage(locale);
  let query = deps.db.selectFrom('pages').selectAll().where('workspace_id', '=', job.workspaceId).where('project_id', '=', projectId);
  if (pageId) query = query.where('id', '=', pageId);
  const work: Work[] = [];
  for (const row of await query.orderBy('id').execute()) {
    const texts = textsOf(row);
    const machine = machineTexts(row);
    for (const field of TEXT_FIELDS) {
      const source = textOf(texts, field)[from];
      if (source !== '' && open(texts, machine, field, locale)) work.push({ pageId: row.id, field, source });
    }
  }
  if (work.length === 0) return;
  const translated = await deps.translator.translate(
    work.map((w) => w.source),
    from,
    locale,
  );
  if (translated.length !== work.length) throw new Error(`the translator answered ${translated.length} texts for ${work.length}`);

  await deps.db.transaction().execute(async (trx) => {
    // The site's row before any page (D-1131); a site deleted, or no longer serving the
    // language, while the translator ran gets nothing.
    const site = await deps.projects.lockProject(trx, job.workspaceId, projectId);
    if (!site?.locales.includes(locale)) return;
    let livePageChanged = false;
    for (const id of new Set(work.map((w) => w.pageId))) {
      const row = await trx.selectFrom('pages').selectAll().where('id', '=', id).executeTakeFirst();
      if (!row) continue;
      const texts = textsOf(row);
      const machine = machineTexts(row);
      let changed = false;
      work.forEach((w, i) => {
        if (w.pageId !== id) return;
        const text = textOf(texts, w.field);
        if (text[from] !== w.source || !open(texts, machine, w.field, locale) || text[locale] === translated[i]) return;
        text[locale] = translated[i]!;
        machine.add(`${w.field}.${locale}`);
        changed = true;
      });
      if (!changed) continue;
      await trx
        .updateTable('pages')
        .set({
          editorial: JSON.stringify(texts.editorial),
          seo: JSON.stringify(texts.seo),
          body: JSON.stringify(texts.body),
          machine_texts: JSON.stringify([...machine].sort()),
          updated_at: iso(deps.clock.now()),
        })
        .where('id', '=', id)
        .execute();
      if (row.status === 'published') livePageChanged = true;
    }
    if (livePageChanged) await deps.projects.regenerateLlmsTxt(trx, job.workspaceId, projectId);
  });
}
