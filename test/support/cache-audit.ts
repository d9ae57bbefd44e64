// A setup file of the `api` test project: every read of knowledge through the index is
// followed by an audit of what memory holds against the store. A write that changes
// knowledge without recording its invalidation on its transaction (D-960) leaves memory
// stale, and the test that read after it fails here, naming what was stale, whichever
// route or job made the write.
import { afterEach } from 'vitest';
import { SqlKnowledgeIndex } from '../../src/knowledge/sql-index.js';

const found: string[] = [];

async function audit(index: SqlKnowledgeIndex, workspaceId: string, agentId: string): Promise<void> {
  try {
    let stale = await index.unannounced(workspaceId, agentId);
    // A write that committed a moment ago announces itself right after its commit: look again.
    if (stale.length) {
      await new Promise((resolve) => setImmediate(resolve));
      stale = await index.unannounced(workspaceId, agentId);
    }
    for (const what of stale) found.push(`${what} (workspace ${workspaceId}): changed in the store, still cached, and no transaction announced it`);
  } catch {
    // The store closed under the audit (the test is ending): nothing to say.
  }
}

for (const method of ['eligibleChunks', 'sources'] as const) {
  const original = SqlKnowledgeIndex.prototype[method] as (this: SqlKnowledgeIndex, workspaceId: string, agentId: string) => Promise<unknown>;
  (SqlKnowledgeIndex.prototype as unknown as Record<string, unknown>)[method] = async function (this: SqlKnowledgeIndex, workspaceId: string, agentId: string) {
    const result = await original.call(this, workspaceId, agentId);
    await audit(this, workspaceId, agentId);
    return result;
  };
}

afterEach(() => {
  if (found.length === 0) return;
  const message = [...new Set(found.splice(0))].join('\n');
  throw new Error(`knowledge cache audit:\n${message}`);
});
