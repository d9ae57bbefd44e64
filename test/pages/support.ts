import type { Emulator } from '../../emulator/emulator.js';
import { workspace } from '../support/emulator.js';

let counter = 0;

/** A workspace with a site (slug unique in the emulator) and an agent to answer on its pages. */
export async function site(emulator: Emulator, project: { locales?: string[]; defaultLocale?: string } = {}) {
  const ws = await workspace(emulator);
  const created = await ws.api.post('/v1/projects', { name: 'Site', slug: `site-${++counter}-${process.pid}`, ...project });
  if (created.status !== 201) throw new Error(`site: ${created.text}`);
  const agent = await ws.api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } });
  const projectId: string = created.body.id;
  const pagesPath = `/v1/projects/${projectId}/pages`;
  return {
    ...ws,
    project: created.body,
    projectId,
    agentId: agent.body.id as string,
    pagesPath,
    /** Creates a document page at `path`; throws unless 201. */
    async doc(path: string, extra: Record<string, unknown> = {}) {
      const res = await ws.api.post(pagesPath, { name: `Doc ${path}`, kind: 'document', path, ...extra });
      if (res.status !== 201) throw new Error(`doc ${path}: ${res.text}`);
      return res.body;
    },
    async agentPage(path: string, extra: Record<string, unknown> = {}) {
      const res = await ws.api.post(pagesPath, { name: `Agent ${path}`, kind: 'agent', path, agentId: agent.body.id, ...extra });
      if (res.status !== 201) throw new Error(`agent page ${path}: ${res.text}`);
      return res.body;
    },
  };
}
