import type { Kysely, Transaction } from 'kysely';
import type { Database, Db } from '../db/schema/index.js';
import type { KnowledgeSourceTable } from '../db/schema/knowledge.js';
import { transaction, type Tx } from '../db/transaction.js';
import type { Job, JobQueue } from '../jobs/queue.js';
import type { Clock } from '../platform/clock.js';
import type { Settings } from '../platform/settings.js';
import { iso, MINUTE } from '../platform/time.js';
import { movable, WorkerLimitError, type WorkerPool } from '../platform/worker-pool.js';
import { crawl, type Crawled } from './fetch/crawl.js';
import type { Embedder, IngestFaultHook, Web } from './ports.js';
import { HashingEmbedder, packVector } from './pipeline/embedder.js';
import { formatOfMediaType, isPdf, MEDIA_TYPES, parseContentType, type DocFormat } from './pipeline/formats.js';
import { LIMIT_FAILURES, type IngestFailureCode } from '../platform/ingest-failures.js';
import { IngestError } from './pipeline/ingest-error.js';
import { finishDocument, ingestClaim, type DocumentInput, type Ingested, type Prepared } from './pipeline/pipeline.js';
import { EXTRACT_WORKER } from './pipeline/worker-ref.js';
import { chunkTerms, packTerms } from './chunk-terms.js';
import type { TermDictionary } from './term-dictionary.js';
import { storedClaim } from './sources.js';
import { ANALYZER_ID } from '../text/analyze.js';

export const INGEST_JOB = 'knowledge.ingest';
export const RECRAWL_JOB = 'knowledge.recrawl';

const INSERT_BATCH = 100;

export interface IngestionDeps {
  db: Kysely<Database>;
  clock: Clock;
  jobs: JobQueue;
  settings: Settings;
  embedder: Embedder;
  /** Where extraction and everything else that grows with a document runs. */
  workers: WorkerPool;
  /** Where URL sources are fetched from (the offline web, or the network). */
  web: Web;
  /** The next injected ingestion failure (control plane fault), if any. */
  takeFault: IngestFaultHook;
  /** Each workspace's term dictionary, which stored chunk terms refer to. */
  terms: TermDictionary;
  /** `trx` changes what agents of the workspace can retrieve (memory learns it when it commits). */
  changed: (trx: Tx, workspaceId: string, sourceId: string) => void;
  /**
   * Inside the transaction that takes a source out of `pending` (ready or failed) or
   * replaces its chunks: `event` names that change (the lexicon is learned again, D-790).
   */
  settled?: (trx: Transaction<Database>, workspaceId: string, event: string) => Promise<void>;
}

/**
 * The payload of an ingestion job. `ownTitle`: the client gave no title, so the
 * document's own (an HTML `<title>`, a Markdown `# heading`) beats the file name
 * (decisions, D-304).
 */
export interface IngestPayload {
  sourceId: string;
  ownTitle?: boolean;
}

/** Chunk ids follow the source's and sort in position order (decisions, D-083). */
export function chunkId(sourceId: string, position: number): string {
  return `chk_${sourceId.replace(/^src_/, '')}_${String(position).padStart(5, '0')}`;
}

/** The format a fetched response is read as: its declared type, else a look at the bytes. */
function formatOfResponse(contentType: string | undefined, body: Uint8Array): { format: DocFormat; charset: string | undefined } {
  const { mediaType, charset } = parseContentType(contentType);
  if (mediaType) {
    const format = formatOfMediaType(mediaType);
    if (!format) throw new IngestError('unsupported_document', `content type ${mediaType}`);
    return { format, charset };
  }
  if (isPdf(body)) return { format: 'pdf', charset };
  const start = Buffer.from(body.subarray(0, 512)).toString('utf8').trimStart();
  return { format: start.startsWith('<') ? 'html' : 'text', charset };
}

function formatOfStored(contentType: string | null): DocFormat {
  const format = contentType ? formatOfMediaType(contentType) : undefined;
  if (!format) throw new IngestError('unsupported_document', `stored content type ${contentType}`);
  return format;
}

function codeOf(error: unknown): IngestFailureCode {
  return error instanceof IngestError ? error.code : 'ingest_failed';
}

/**
 * The background side of knowledge: the `knowledge.ingest` job that takes a `pending`
 * source to `ready` or `failed`, and the `knowledge.recrawl` job that fetches a URL
 * source again at `nextSyncAt`. Both are idempotent (a job cut off by a crash runs again)
 * and write their outcome in one transaction that checks the source is still there.
 */
export class Ingestion {
  constructor(private readonly deps: IngestionDeps) {}

  register(): void {
    this.deps.jobs.register<IngestPayload>(INGEST_JOB, (job) => this.ingest(job));
    this.deps.jobs.register<{ sourceId: string; syncAt: string }>(RECRAWL_JOB, (job) => this.recrawl(job));
  }

  async #source(db: Db, workspaceId: string, sourceId: string): Promise<KnowledgeSourceTable | undefined> {
    return db.selectFrom('knowledge_sources').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', sourceId).executeTakeFirst();
  }

  async ingest(job: Job<IngestPayload>): Promise<void> {
    const row = await this.#source(this.deps.db, job.workspaceId, job.payload.sourceId);
    if (row?.status !== 'pending') return;
    let result: { ingested: Ingested; fetched?: Crawled | undefined };
    try {
      const fault = await this.deps.takeFault();
      if (fault !== undefined) throw new IngestError(fault, 'injected fault');
      result = await this.#run(row, job.payload.ownTitle === true);
    } catch (error) {
      if (!(error instanceof IngestError)) this.deps.settings.log(`ingestion of ${row.id} failed`, error);
      await this.#fail(row, codeOf(error));
      return;
    }
    await this.#transaction(row.workspace_id, async (trx) => {
      const current = await this.#source(trx, row.workspace_id, row.id);
      if (current?.status !== 'pending') return;
      await this.#writeReady(trx, current, result.ingested, result.fetched);
      await trx.deleteFrom('knowledge_inputs').where('source_id', '=', row.id).execute();
    });
  }

  /** A transaction that adds terms to the dictionary: when it fails, memory forgets what the store did not keep. */
  async #transaction<T>(workspaceId: string, work: (trx: Tx) => Promise<T>): Promise<T> {
    try {
      return await transaction(this.deps.db, work);
    } catch (error) {
      this.deps.terms.forget(workspaceId);
      throw error;
    }
  }

  /** Extracts, chunks, embeds: the document comes from the stored input, the claim, or the web. */
  async #run(row: KnowledgeSourceTable, ownTitle: boolean): Promise<{ ingested: Ingested; fetched?: Crawled }> {
    // A claim is two texts of at most 2,000 characters: no worker needed.
    if (row.kind === 'claim') return { ingested: await ingestClaim(storedClaim(row), row.title, this.deps.embedder) };
    if (row.kind === 'url') return this.#fetchAndIngest(row);
    const input = await this.deps.db.selectFrom('knowledge_inputs').select('content').where('source_id', '=', row.id).executeTakeFirst();
    if (!input) throw new IngestError('ingest_failed', 'the stored document is missing');
    const document = {
      kind: 'upload' as const,
      format: formatOfStored(row.content_type),
      bytes: input.content,
      title: ownTitle ? undefined : row.title,
      fallbackTitle: row.title,
      fileName: row.file_name ?? undefined,
    };
    // The stored bytes are read once: they may move to the thread rather than be copied.
    return { ingested: await this.#ingestDocument(document, movable(input.content)) };
  }

  /**
   * A document through the pipeline in a worker thread. The built-in embedder runs
   * there too; an embedder the user plugged in (maybe a network client) runs here.
   * Going over the pool's time or memory limit fails the source with its reason.
   */
  async #ingestDocument(input: DocumentInput, transfer: ArrayBuffer[] = []): Promise<Ingested> {
    const embed = this.deps.embedder.constructor === HashingEmbedder;
    let outcome: { prepared: Prepared } | { failed: IngestFailureCode };
    try {
      outcome = await this.deps.workers.run(EXTRACT_WORKER, 'prepare', { ...input, embed }, { background: true, transfer });
    } catch (error) {
      if (error instanceof WorkerLimitError)
        throw new IngestError(error.limit === 'time' ? LIMIT_FAILURES.timeLimit : LIMIT_FAILURES.memoryLimit, error.message);
      throw error;
    }
    if ('failed' in outcome) throw new IngestError(outcome.failed);
    return finishDocument(outcome.prepared, this.deps.embedder);
  }

  async #fetchAndIngest(row: KnowledgeSourceTable): Promise<{ ingested: Ingested; fetched: Crawled }> {
    const fetched = await crawl(row.url!, this.deps.web, { timeoutMs: this.deps.settings.fetchTimeoutMs });
    const { format, charset } = formatOfResponse(fetched.contentType, fetched.body);
    const ingested = await this.#ingestDocument({ kind: 'url', format, bytes: fetched.body, charset, fallbackTitle: fetched.url });
    return { ingested, fetched };
  }

  async #fail(row: KnowledgeSourceTable, code: IngestFailureCode): Promise<void> {
    const now = iso(this.deps.clock.now());
    await this.deps.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('knowledge_sources')
        .set({ status: 'failed', error: code, updated_at: now })
        .where('id', '=', row.id)
        .where('status', '=', 'pending')
        .execute();
      await trx.deleteFrom('knowledge_inputs').where('source_id', '=', row.id).execute();
      await this.deps.settled?.(trx, row.workspace_id, `${row.id}:failed`);
    });
  }

  /** Replaces the chunks of a source and records what the pipeline found; for URLs, schedules the next crawl. */
  async #writeReady(trx: Tx, row: KnowledgeSourceTable, ingested: Ingested, fetched: Crawled | undefined): Promise<void> {
    this.deps.changed(trx, row.workspace_id, row.id);
    const now = this.deps.clock.now();
    await trx.deleteFrom('knowledge_chunks').where('source_id', '=', row.id).execute();
    const ids = await this.deps.terms.assign(
      trx,
      row.workspace_id,
      ingested.chunks.flatMap((c) => c.analysis.terms),
    );
    const chunks = ingested.chunks.map((c, position) => ({
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
      terms: packTerms(chunkTerms(c.analysis, ids)),
      analyzer_id: ANALYZER_ID,
    }));
    for (let i = 0; i < chunks.length; i += INSERT_BATCH)
      await trx
        .insertInto('knowledge_chunks')
        .values(chunks.slice(i, i + INSERT_BATCH))
        .execute();
    const update: Partial<KnowledgeSourceTable> = {
      status: 'ready',
      error: null,
      title: ingested.title,
      lang: ingested.lang,
      source_lang: ingested.lang,
      translated: 0,
      chunk_count: chunks.length,
      token_count: ingested.tokenCount,
      summary: ingested.summary,
      content_hash: ingested.contentHash,
      updated_at: iso(now),
    };
    if (fetched) {
      const nextSyncAt = iso(now + Number(row.sync_ttl_minutes) * MINUTE);
      Object.assign(update, {
        resolved_url: fetched.url,
        content_type: MEDIA_TYPES[formatOfResponse(fetched.contentType, fetched.body).format],
        byte_size: fetched.body.byteLength,
        last_fetched_at: iso(now),
        next_sync_at: nextSyncAt,
      });
      await this.#scheduleRecrawl(trx, row, nextSyncAt);
    }
    await trx.updateTable('knowledge_sources').set(update).where('id', '=', row.id).execute();
    await this.deps.settled?.(trx, row.workspace_id, `${row.id}:${ingested.contentHash}`);
  }

  /**
   * The next crawl, as a job row due at `nextSyncAt`. Its id derives from the source and
   * the time rather than from the id generator: ingestion runs in the background, and
   * drawing ids there would make a seeded emulator's later ids depend on job timing.
   */
  async #scheduleRecrawl(trx: Transaction<Database>, row: KnowledgeSourceTable, syncAt: string): Promise<void> {
    await this.deps.jobs.enqueue(trx, {
      id: `job_${row.id.replace(/^src_/, '')}_${Date.parse(syncAt).toString(36)}`,
      workspaceId: row.workspace_id,
      kind: RECRAWL_JOB,
      payload: { sourceId: row.id, syncAt },
      runAt: Date.parse(syncAt),
    });
  }

  /**
   * A due re-crawl: new content replaces the chunks; the same content only moves the
   * fetch times; a failed fetch keeps the source `ready` with its chunks and sets
   * `error`. The next crawl is scheduled either way.
   */
  async recrawl(job: Job<{ sourceId: string; syncAt: string }>): Promise<void> {
    const row = await this.#source(this.deps.db, job.workspaceId, job.payload.sourceId);
    if (row?.kind !== 'url' || row.status !== 'ready' || row.next_sync_at !== job.payload.syncAt) return;
    let result: { ingested: Ingested; fetched: Crawled } | undefined;
    let failure: IngestFailureCode | undefined;
    try {
      const fault = await this.deps.takeFault();
      if (fault !== undefined) throw new IngestError(fault, 'injected fault');
      result = await this.#fetchAndIngest(row);
    } catch (error) {
      if (!(error instanceof IngestError)) this.deps.settings.log(`re-crawl of ${row.id} failed`, error);
      failure = codeOf(error);
    }
    await this.#transaction(row.workspace_id, async (trx) => {
      const current = await this.#source(trx, row.workspace_id, row.id);
      if (current?.status !== 'ready' || current.next_sync_at !== job.payload.syncAt) return false;
      const now = this.deps.clock.now();
      const nextSyncAt = iso(now + Number(current.sync_ttl_minutes) * MINUTE);
      if (!result || result.ingested.contentHash === current.content_hash) {
        await trx
          .updateTable('knowledge_sources')
          .set({
            error: failure ?? null,
            next_sync_at: nextSyncAt,
            updated_at: iso(now),
            ...(result && { resolved_url: result.fetched.url, last_fetched_at: iso(now) }),
          })
          .where('id', '=', row.id)
          .execute();
        // The version itself only moves when content, title or address changed.
        this.deps.changed(trx, row.workspace_id, row.id);
        await this.#scheduleRecrawl(trx, current, nextSyncAt);
        return true;
      }
      await this.#writeReady(trx, current, result.ingested, result.fetched);
      return true;
    });
  }
}
