import type { KnowledgeSourceTable } from '../db/schema/knowledge.js';
import { storedJson } from '../platform/stored.js';
import { StoredClaimSchema, StoredTopicsSchema, type Source } from './knowledge.schema.js';

/** A source's topics as stored; a value this service did not write is a problem naming the source (D-722). */
export const storedTopics = (row: { id: string; topics: string }): string[] =>
  storedJson(StoredTopicsSchema, row.topics, { table: 'knowledge_sources', row: row.id, column: 'topics' });

/** A claim source's texts as stored. */
export const storedClaim = (row: { id: string; claim: string | null }): { es: string; en: string } =>
  storedJson(StoredClaimSchema, row.claim, { table: 'knowledge_sources', row: row.id, column: 'claim' });

/** The API record of a source row (API.md, Knowledge source): optional fields are left out, never null. */
export function toSource(row: KnowledgeSourceTable): Source {
  const source: Source = {
    id: row.id,
    agentId: row.agent_id,
    kind: row.kind as Source['kind'],
    title: row.title,
    status: row.status as Source['status'],
    lang: row.lang === 'es' ? 'es' : 'en',
    translated: Boolean(row.translated),
    topics: storedTopics(row),
    chunkCount: row.chunk_count,
    tokenCount: row.token_count,
    summary: row.summary,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.error !== null) source.error = row.error;
  if (row.source_lang !== null) source.sourceLang = row.source_lang === 'es' ? 'es' : 'en';
  if (row.file_name !== null) source.fileName = row.file_name;
  if (row.content_type !== null) source.contentType = row.content_type;
  if (row.byte_size !== null) source.byteSize = Number(row.byte_size);
  if (row.url !== null) source.url = row.url;
  if (row.resolved_url !== null) source.resolvedUrl = row.resolved_url;
  if (row.last_fetched_at !== null) source.lastFetchedAt = row.last_fetched_at;
  if (row.sync_ttl_minutes !== null) source.syncTtlMinutes = Number(row.sync_ttl_minutes);
  if (row.next_sync_at !== null) source.nextSyncAt = row.next_sync_at;
  if (row.claim !== null) source.claim = storedClaim(row);
  return source;
}

/** A new `pending` source row: counts 0, summary empty, language unknown (`en`) until ready. */
export function pendingRow(
  fields: Pick<KnowledgeSourceTable, 'id' | 'workspace_id' | 'agent_id' | 'kind' | 'title' | 'topics'> & Partial<KnowledgeSourceTable> & { now: string },
): KnowledgeSourceTable {
  const { now, ...rest } = fields;
  return {
    status: 'pending',
    error: null,
    lang: 'en',
    source_lang: null,
    translated: 0,
    file_name: null,
    content_type: null,
    byte_size: null,
    url: null,
    resolved_url: null,
    last_fetched_at: null,
    sync_ttl_minutes: null,
    next_sync_at: null,
    claim: null,
    chunk_count: 0,
    token_count: 0,
    summary: '',
    content_hash: null,
    created_at: now,
    updated_at: now,
    ...rest,
  };
}
