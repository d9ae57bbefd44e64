import type { Kysely } from 'kysely';
import { prepareInsert, prepareQuery, type PreparedInsert, type PreparedQuery, type RowParams } from '../db/prepared.js';
import type { Database } from '../db/schema/index.js';
import type { KnowledgeChunkTable, KnowledgeSourceTable } from '../db/schema/knowledge.js';
import { transaction, type Tx } from '../db/transaction.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Clock } from '../platform/clock.js';
import { GroupCommit } from '../platform/group-commit.js';
import type { IngestFailureCode } from '../platform/ingest-failures.js';
import { iso, MINUTE } from '../platform/time.js';
import { ANALYZER_ID } from '../text/analyze.js';
import { chunkTerms, packTerms } from './chunk-terms.js';
import type { Crawled } from './fetch/crawl.js';
import type { Embedder } from './ports.js';
import { packVector } from './pipeline/embedder.js';
import { formatOfMediaType, isPdf, looksBinary, MEDIA_TYPES, parseContentType, type DocFormat } from './pipeline/formats.js';
import { IngestError } from './pipeline/ingest-error.js';
import type { Ingested } from './pipeline/pipeline.js';
import type { TermDictionary } from './term-dictionary.js';

export const RECRAWL_JOB = 'knowledge.recrawl';

/** Chunk rows per insert statement: 12 values each, far below every dialect's limit. */
const INSERT_BATCH = 200;
/** Sources written by one transaction at most. */
const WRITE_GROUP = 64;

type ChunkRow = RowParams<KnowledgeChunkTable>;
const CHUNK_COLUMNS: (keyof ChunkRow)[] = [
  'id',
  'workspace_id',
  'source_id',
  'agent_id',
  'position',
  'lang',
  'text',
  'token_count',
  'embedding',
  'embedder_id',
  'terms',
  'analyzer_id',
];

/** What an ingested upload's source row becomes (a fetched page sets more, through kysely). */
type ReadyFields = Pick<
  KnowledgeSourceTable,
  'error' | 'title' | 'lang' | 'source_lang' | 'translated' | 'chunk_count' | 'token_count' | 'summary' | 'content_hash' | 'updated_at'
> & { id: string };

/**
 * A workspace's terms in these sources, in the order the dictionary gives new ones ids:
 * `termsAhead` and `writeReady` must give the same order (D-1158).
 */
function termsOf(items: readonly { row: KnowledgeSourceTable; ingested: Ingested }[], workspaceId: string): string[] {
  return items.filter((i) => i.row.workspace_id === workspaceId).flatMap((i) => i.ingested.chunks.flatMap((c) => c.analysis.terms));
}

/** Chunk ids follow the source's and sort in position order (decisions, D-083). */
export function chunkId(sourceId: string, position: number): string {
  return `chk_${sourceId.replace(/^src_/, '')}_${String(position).padStart(5, '0')}`;
}

/**
 * The format a fetched response is read as: its declared type (D-077), else a look at the
 * bytes. A text format whose bytes are binary (a NUL byte near the start, or a PDF's
 * signature) is not what was declared: `unsupported_document`, as an upload's 415 (D-1191).
 */
export function formatOfResponse(contentType: string | undefined, body: Uint8Array): { format: DocFormat; charset: string | undefined } {
  const { mediaType, charset } = parseContentType(contentType);
  let format: DocFormat;
  if (mediaType) {
    const declared = formatOfMediaType(mediaType);
    if (!declared) throw new IngestError('unsupported_document', `content type ${mediaType}`);
    format = declared;
  } else if (isPdf(body)) {
    format = 'pdf';
  } else {
    const start = Buffer.from(body.subarray(0, 512)).toString('utf8').trimStart();
    format = start.startsWith('<') ? 'html' : 'text';
  }
  if (format !== 'pdf' && (isPdf(body) || looksBinary(body))) throw new IngestError('unsupported_document', `binary data declared as ${mediaType || format}`);
  return { format, charset };
}

/** What an ingestion ends with: a source ready with what the pipeline found, or failed with a code. */
export type IngestOutcome =
  | { row: KnowledgeSourceTable; ingested: Ingested; fetched?: Crawled | undefined }
  | { row: KnowledgeSourceTable; failed: IngestFailureCode };

export interface IngestWritesDeps {
  db: Kysely<Database>;
  clock: Clock;
  jobs: JobQueue;
  embedder: Embedder;
  terms: TermDictionary;
  /** `trx` changes what agents of the workspace can retrieve (memory learns it when it commits). */
  changed: (trx: Tx, workspaceId: string, sourceIds: string[]) => void;
  /**
   * Inside each transaction, once per workspace whose sources it settled: `event` names
   * what it settled (the lexicon is learned again, D-790).
   */
  settled?: ((trx: Tx, workspaceId: string, event: string) => Promise<void>) | undefined;
}

/**
 * Where ingestion's outcomes are written: each `pending` source becomes `ready` with its
 * chunks, or `failed`, and its stored document goes, in a transaction that checks the
 * source is still pending. Outcomes that finish while a write is under way are written
 * together in the next transaction (group commit, D-893): one transaction, one term
 * dictionary update and a few multi-row inserts for many sources.
 */
export class IngestWrites {
  readonly #group = new GroupCommit<IngestOutcome>((outcomes) => this.#commit(outcomes), WRITE_GROUP);
  /** The writes of every ingested source, compiled once (D-1055): kysely compiles each call otherwise. */
  readonly #insertChunks: PreparedInsert<ChunkRow>;
  readonly #ready: PreparedQuery<ReadyFields, unknown>;

  constructor(private readonly deps: IngestWritesDeps) {
    const { db } = deps;
    this.#insertChunks = prepareInsert<ChunkRow>(db, CHUNK_COLUMNS, INSERT_BATCH, (rows) => db.insertInto('knowledge_chunks').values(rows));
    this.#ready = prepareQuery(db, (p) =>
      db
        .updateTable('knowledge_sources')
        .set({
          status: 'ready',
          error: p('error'),
          title: p('title'),
          lang: p('lang'),
          source_lang: p('source_lang'),
          translated: p('translated'),
          chunk_count: p('chunk_count'),
          token_count: p('token_count'),
          summary: p('summary'),
          content_hash: p('content_hash'),
          updated_at: p('updated_at'),
        })
        .where('id', '=', p('id')),
    );
  }

  /** Resolves once the outcome is committed (or found moot: the source was deleted or is no longer pending). */
  write(outcome: IngestOutcome): Promise<void> {
    return this.#group.add(outcome);
  }

  /** A transaction that adds terms to the dictionary: when it fails, memory forgets what the store did not keep. */
  async transaction<T>(workspaceIds: Iterable<string>, work: (trx: Tx) => Promise<T>): Promise<T> {
    const ids = [...new Set(workspaceIds)];
    try {
      return await transaction(this.deps.db, async (trx) => {
        await this.deps.terms.lockFor(trx, ids);
        return work(trx);
      });
    } catch (error) {
      for (const id of ids) this.deps.terms.forget(id);
      throw error;
    }
  }

  /**
   * Before the transaction that stores these sources: their new terms, when they are
   * many, get their ids in slices (D-1158), in the order `writeReady` gives them.
   */
  async termsAhead(items: readonly { row: KnowledgeSourceTable; ingested: Ingested }[]): Promise<void> {
    for (const workspaceId of new Set(items.map((i) => i.row.workspace_id))) {
      await this.deps.terms.assignAhead(workspaceId, termsOf(items, workspaceId), (work) => this.transaction([workspaceId], work));
    }
  }

  async #commit(outcomes: IngestOutcome[]): Promise<void> {
    // Source id order: the dictionary gives new terms their ids in the same order whatever the timing.
    const sorted = [...outcomes].sort((a, b) => (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0));
    await this.termsAhead(sorted.filter((o) => 'ingested' in o));
    await this.transaction(
      sorted.map((o) => o.row.workspace_id),
      async (trx) => {
        const current = new Map(
          (
            await trx
              .selectFrom('knowledge_sources')
              .selectAll()
              .where(
                'id',
                'in',
                sorted.map((o) => o.row.id),
              )
              .execute()
          ).map((r) => [r.id, r]),
        );
        const seen = new Set<string>();
        const done: { row: KnowledgeSourceTable; ingested: Ingested; fetched?: Crawled | undefined }[] = [];
        const failed = new Map<IngestFailureCode, string[]>();
        for (const o of sorted) {
          const row = current.get(o.row.id);
          if (!row || row.workspace_id !== o.row.workspace_id || row.status !== 'pending' || seen.has(row.id)) continue;
          seen.add(row.id);
          if ('failed' in o) failed.set(o.failed, [...(failed.get(o.failed) ?? []), row.id]);
          else done.push({ row, ingested: o.ingested, fetched: o.fetched });
        }
        if (done.length > 0) await this.writeReady(trx, done);
        const now = iso(this.deps.clock.now());
        for (const [code, ids] of failed) {
          await trx
            .updateTable('knowledge_sources')
            .set({ status: 'failed', error: code, updated_at: now })
            .where('id', 'in', ids)
            .where('status', '=', 'pending')
            .execute();
        }
        // A stored document is kept only until its source is ready or failed.
        await trx
          .deleteFrom('knowledge_inputs')
          .where(
            'source_id',
            'in',
            sorted.map((o) => o.row.id),
          )
          .execute();
        // One event per workspace and commit (not one per source): the lexicon job it may
        // schedule runs once for a group, and only when no source of the workspace is left pending.
        const events = new Map<string, string[]>();
        for (const { row, ingested } of done) events.set(row.workspace_id, [...(events.get(row.workspace_id) ?? []), `${row.id}:${ingested.contentHash}`]);
        for (const ids of failed.values())
          for (const id of ids) {
            const workspaceId = current.get(id)!.workspace_id;
            events.set(workspaceId, [...(events.get(workspaceId) ?? []), `${id}:failed`]);
          }
        for (const [workspaceId, settled] of [...events].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
          await this.deps.settled?.(trx, workspaceId, settled.sort().join(' '));
        }
      },
    );
  }

  /**
   * Replaces the chunks of those sources and records what the pipeline found; for URLs,
   * schedules the next crawl. Terms get their ids once for all of them, chunks go in
   * multi-row inserts; the retrieval caches learn of them when `trx` commits.
   */
  async writeReady(trx: Tx, items: { row: KnowledgeSourceTable; ingested: Ingested; fetched?: Crawled | undefined }[]): Promise<void> {
    const byWorkspace = new Map<string, string[]>();
    for (const { row } of items) byWorkspace.set(row.workspace_id, [...(byWorkspace.get(row.workspace_id) ?? []), row.id]);
    for (const [workspaceId, ids] of byWorkspace) this.deps.changed(trx, workspaceId, ids);
    const now = this.deps.clock.now();
    await trx
      .deleteFrom('knowledge_chunks')
      .where(
        'source_id',
        'in',
        items.map((i) => i.row.id),
      )
      .execute();
    const dictionaries = new Map<string, ReadonlyMap<string, number>>();
    for (const workspaceId of new Set(items.map((i) => i.row.workspace_id))) {
      dictionaries.set(workspaceId, await this.deps.terms.assign(trx, workspaceId, termsOf(items, workspaceId)));
    }
    const rows = items.flatMap(({ row, ingested }) =>
      ingested.chunks.map(
        (c, position): ChunkRow => ({
          id: chunkId(row.id, position),
          workspace_id: row.workspace_id,
          source_id: row.id,
          agent_id: row.agent_id,
          position,
          lang: c.lang,
          text: c.text,
          token_count: c.tokenCount,
          embedding: packVector(c.vector),
          embedder_id: this.deps.embedder.id,
          terms: packTerms(chunkTerms(c.analysis, dictionaries.get(row.workspace_id)!)),
          analyzer_id: ANALYZER_ID,
        }),
      ),
    );
    await this.#insertChunks.execute(rows, trx);
    for (const { row, ingested, fetched } of items) {
      const ready: ReadyFields = {
        id: row.id,
        error: null,
        title: ingested.title,
        lang: ingested.lang,
        source_lang: ingested.lang,
        translated: 0,
        chunk_count: ingested.chunks.length,
        token_count: ingested.tokenCount,
        summary: ingested.summary,
        content_hash: ingested.contentHash,
        updated_at: iso(now),
      };
      if (!fetched) {
        await this.#ready.execute(ready, trx);
        continue;
      }
      // A fetched page also moves its address, type, size and crawl times.
      const nextSyncAt = iso(now + Number(row.sync_ttl_minutes) * MINUTE);
      await this.scheduleRecrawl(trx, row, nextSyncAt);
      const { id, ...fields } = ready;
      await trx
        .updateTable('knowledge_sources')
        .set({
          ...fields,
          status: 'ready',
          resolved_url: fetched.url,
          content_type: MEDIA_TYPES[formatOfResponse(fetched.contentType, fetched.body).format],
          byte_size: fetched.body.byteLength,
          last_fetched_at: iso(now),
          next_sync_at: nextSyncAt,
        })
        .where('id', '=', id)
        .execute();
    }
  }

  /**
   * The next crawl, as a job row due at `nextSyncAt`. Its id derives from the source and
   * the time rather than from the id generator: ingestion runs in the background, and
   * drawing ids there would make a seeded emulator's later ids depend on job timing.
   */
  async scheduleRecrawl(trx: Tx, row: KnowledgeSourceTable, syncAt: string): Promise<void> {
    await this.deps.jobs.enqueue(trx, {
      id: `job_${row.id.replace(/^src_/, '')}_${Date.parse(syncAt).toString(36)}`,
      workspaceId: row.workspace_id,
      kind: RECRAWL_JOB,
      payload: { sourceId: row.id, syncAt },
      runAt: Date.parse(syncAt),
    });
  }
}
