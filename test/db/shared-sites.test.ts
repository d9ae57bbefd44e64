import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import { site } from '../pages/support.js';
import { quiet } from '../support/emulator.js';
import { againstOtherWriter, type Statement } from '../support/other-writer.js';
import { freshDatabase } from '../support/postgres.js';

// Processes sharing one PostgreSQL database write one site at the same moment (D-1131):
// every writer of a site's rows takes the site's row first, as its deletion does, so one
// waits for the other instead of each holding a page the other needs, and a write that
// waited on a deletion finds the site gone instead of leaving a page, a theme or a brand
// behind it. A second connection plays the other process.
describe('PostgreSQL shared by processes: writers meeting on one site', () => {
  let emulator: Emulator;
  let pool: pg.Pool;

  beforeAll(async () => {
    const url = freshDatabase(inject('postgres'), 'sites');
    emulator = await createEmulator({ db: url, fixtures: 'none', log: quiet });
    pool = new pg.Pool({ connectionString: url, max: 2 });
  }, 60_000);

  afterAll(async () => {
    await emulator?.close();
    await pool?.end();
  });

  const lockSite = (projectId: string): Statement => ['UPDATE projects SET id = id WHERE id = $1', [projectId]];
  /** The rest of a site's deletion, as the service runs it once it holds the site's row. */
  const deleteSite = (projectId: string): Statement[] =>
    ['pages', 'themes', 'brand_files', 'brands', 'project_slugs']
      .map((table): Statement => [`DELETE FROM ${table} WHERE project_id = $1`, [projectId]])
      .concat([['DELETE FROM projects WHERE id = $1', [projectId]]]);
  const rowsOf = async (table: string, projectId: string) => (await pool.query(`SELECT * FROM ${table} WHERE project_id = $1`, [projectId])).rows;

  it('a page published while another process deletes its site: the publish waits, then answers 404, never a 500 or a 503', async () => {
    const s = await site(emulator);
    const page = await s.doc('/about', { body: { en: 'About us' } });
    const { otherError, answer } = await againstOtherWriter(
      pool,
      [lockSite(s.projectId)],
      () => s.api.post(`/v1/pages/${page.id}/publish`),
      deleteSite(s.projectId),
    );
    expect(otherError).toBeUndefined();
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('svc.page.not_found');
  }, 60_000);

  it('a page created, a theme or a brand changed while another process deletes the site: each waits, then 404; nothing outlives the site', async () => {
    const writes = [
      (s: Awaited<ReturnType<typeof site>>) => s.api.post(s.pagesPath, { name: 'Late', kind: 'document', path: '/late' }),
      (s: Awaited<ReturnType<typeof site>>) => s.api.patch(`/v1/projects/${s.projectId}/theme`, { tokens: { radius: 'sm' } }),
      (s: Awaited<ReturnType<typeof site>>) => s.api.patch(`/v1/projects/${s.projectId}/brand`, { footer: { text: { en: 'Late' } } }),
    ];
    for (const write of writes) {
      const s = await site(emulator);
      const { otherError, answer } = await againstOtherWriter(pool, [lockSite(s.projectId)], () => write(s), deleteSite(s.projectId));
      expect(otherError).toBeUndefined();
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe('svc.project.not_found');
      for (const table of ['pages', 'themes', 'brands']) expect(await rowsOf(table, s.projectId)).toEqual([]);
    }
  }, 90_000);

  it('a site deleted while another process translates its pages: the deletion waits for the translation, then answers 200', async () => {
    const s = await site(emulator);
    const first = await s.doc('/one', { body: { en: 'One' } });
    const second = await s.doc('/two', { body: { en: 'Two' } });
    // The translation's commit: the site's row, then its pages, in an order the deletion
    // does not keep (the second page before the first), then the site's llms.txt.
    const touch = (id: string): Statement => ['UPDATE pages SET updated_at = updated_at WHERE id = $1', [id]];
    const { otherError, answer } = await againstOtherWriter(
      pool,
      [lockSite(s.projectId), touch(second.id)],
      () => s.api.delete(`/v1/projects/${s.projectId}`),
      [touch(first.id), ['UPDATE projects SET llms_text = llms_text WHERE id = $1', [s.projectId]]],
    );
    expect(otherError).toBeUndefined();
    expect(answer.status).toBe(200);
    expect(answer.body.pagesDeleted).toBe(2);
    expect(await rowsOf('pages', s.projectId)).toEqual([]);
  }, 60_000);
});
