import type { DialectMigration } from './migration.js';
import { core } from './0001-core.js';
import { knowledge } from './0002-knowledge.js';
import { sites } from './0003-sites.js';
import { assets } from './0004-assets.js';
import { chat } from './0005-chat.js';
import { sharedStore } from './0006-shared-store.js';
import { retrievalTerms } from './0007-retrieval-terms.js';
import { retrievalScopeIndexes } from './0008-retrieval-scope-indexes.js';
import { retrievalScopeIndexParts } from './0009-retrieval-scope-index-parts.js';
import { retrievalLexicons } from './0010-retrieval-lexicons.js';
import { knowledgeSourceStatus } from './0011-knowledge-source-status.js';
import { jobTurns } from './0012-job-turns.js';
import { pagesNewest } from './0013-pages-newest.js';

/**
 * Every migration, keyed by a name that sorts in application order. A part of the API
 * adds its own file (`0003-knowledge.ts`) and one line here; applied migrations are
 * never edited.
 */
export const MIGRATIONS: Record<string, DialectMigration> = {
  '0001-core': core,
  '0002-knowledge': knowledge,
  '0003-sites': sites,
  '0004-assets': assets,
  '0005-chat': chat,
  '0006-shared-store': sharedStore,
  '0007-retrieval-terms': retrievalTerms,
  '0008-retrieval-scope-indexes': retrievalScopeIndexes,
  '0009-retrieval-scope-index-parts': retrievalScopeIndexParts,
  '0010-retrieval-lexicons': retrievalLexicons,
  '0011-knowledge-source-status': knowledgeSourceStatus,
  '0012-job-turns': jobTurns,
  '0013-pages-newest': pagesNewest,
};
