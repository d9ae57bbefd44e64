import type { Kysely } from 'kysely';
import { prepareQuery, type PreparedQuery } from '../db/prepared.js';
import type { Database, Db } from '../db/schema/index.js';
import type { KnowledgeSourceTable } from '../db/schema/knowledge.js';
import type { Tx } from '../db/transaction.js';
import type { Job, JobQueue } from '../jobs/queue.js';
import type { Clock } from '../platform/clock.js';
import { LIMIT_FAILURES, type IngestFailureCode } from '../platform/ingest-failures.js';
import type { Settings } from '../platform/settings.js';
import { iso, MINUTE } from '../platform/time.js';
import { movable, WorkerLimitError, type WorkerPool } from '../platform/worker-pool.js';
import { crawl, type Crawled } from './fetch/crawl.js';
import { formatOfResponse, IngestWrites, RECRAWL_JOB, type IngestOutcome } from './ingest-writes.js';
import type { Embedder, IngestFaultHook, Web } from './ports.js';
import { HashingEmbedder } from './pipeline/embedder.js';
import { formatOfMediaType, type DocFormat } from './pipeline/formats.js';
import { IngestError } from './pipeline/ingest-error.js';
import { finishDocument, ingestClaim, type DocumentInput, type Ingested, type Prepared } from './pipeline/pipeline.js';
import { EXTRACT_WORKER } from './pipeline/worker-ref.js';
import { storedClaim } from './sources.js';
import type { TermDictionary } from './term-dictionary.js';

export const INGEST_JOB = 'knowledge.ingest';
export { RECRAWL_JOB };

/** Ingestion jobs claimed and run together (D-891): their writes share transactions. */
const INGEST_BATCH = 16;
/**
 * Uploads a worker thread reads in one task at most while a batch has a backlog, and the
 * stored bytes they hold between them (D-1222): a task is a round trip through the
 * serving thread, which a thread at nice 10 waits for on a busy machine.
 */
const DOCUMENTS_PER_TASK = 4;
const BYTES_PER_TASK = 1024 * 1024;

/** A claimed job whose source is pending, with its place among the queued faults. */
interface Pending {
  job: Job<IngestPayload>;
  row: KnowledgeSourceTable;
  fault: Promise<IngestFailureCode | undefined>;
}

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
  changed: (trx: Tx, workspaceId: string, sourceIds: string[]) => void;
  /**
   * Inside the transaction that takes sources out of `pending` (ready or failed) or
   * replaces their chunks: `event` names that change (the lexicon is learned again, D-790).
   */
  settled?: (trx: Tx, workspaceId: string, event: string) => Promise<void>;
}

/**
 * The payload of an ingestion job. `ownTitle`: the client gave no title, so the
 * document's own (an HTML `<title>`, a Markdown `# heading`) beats the file name
 * (decisions, D-304). `charset`: the encoding name an upload's part declared (D-1190);
 * the job row keeps it as long as the stored document waits.
 */
export interface IngestPayload {
  sourceId: string;
  ownTitle?: boolean;
  charset?: string;
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
 * and write their outcome in a transaction that checks the source is still there (one
 * shared by the outcomes that finish together, D-893).
 */
export class Ingestion {
  readonly #writes: IngestWrites;
  /** The last ingestion's turn at the queued faults: each waits for the one before (D-1119). */
  #faultTurn: Promise<unknown> = Promise.resolve();
  /** Every upload's stored document is read once: compiled once. */
  readonly #input: PreparedQuery<{ sourceId: string }, { content: Uint8Array }>;

  constructor(private readonly deps: IngestionDeps) {
    this.#writes = new IngestWrites(deps);
    const { db } = deps;
    this.#input = prepareQuery(db, (p) => db.selectFrom('knowledge_inputs').select('content').where('source_id', '=', p('sourceId')));
  }

  register(): void {
    this.deps.jobs.registerBatch<IngestPayload>(INGEST_JOB, (jobs) => this.ingest(jobs), INGEST_BATCH);
    this.deps.jobs.register<{ sourceId: string; syncAt: string }>(RECRAWL_JOB, (job) => this.recrawl(job));
  }

  async #source(db: Db, workspaceId: string, sourceId: string): Promise<KnowledgeSourceTable | undefined> {
    return db.selectFrom('knowledge_sources').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', sourceId).executeTakeFirst();
  }

  /**
   * A batch of ingestion jobs: their pending sources go through the pipeline a few at a
   * time (as many as the pool has background threads, so that the threads stay busy and
   * only those documents are in memory), and each outcome is written as soon as it is
   * known, with whatever else finished meanwhile (D-893). Answers the jobs whose outcome
   * could not be written.
   */
  async ingest(jobs: Job<IngestPayload>[]): Promise<Map<string, unknown>> {
    // Queued faults go to ingestions in the order their jobs were claimed, this batch's
    // before a later batch's (D-1119): the places are taken now, before any await.
    const wanted = jobs.map(() => settleable<boolean>());
    const faults = wanted.map((w) => this.#nextFault(w.promise));
    const todo: Pending[] = [];
    try {
      const ids = [...new Set(jobs.map((j) => j.payload.sourceId))];
      const rows = new Map((await this.deps.db.selectFrom('knowledge_sources').selectAll().where('id', 'in', ids).execute()).map((r) => [r.id, r]));
      jobs.forEach((job, i) => {
        const row = rows.get(job.payload.sourceId);
        // Gone, settled, or another job of this batch takes it: nothing to do, no fault spent.
        if (row?.workspace_id !== job.workspaceId || row.status !== 'pending') return;
        rows.delete(row.id);
        todo.push({ job, row, fault: faults[i]! });
        wanted[i]!.resolve(true);
      });
    } finally {
      for (const w of wanted) w.resolve(false);
    }
    const failures = new Map<string, unknown>();
    const writes: Promise<void>[] = [];
    let next = 0;
    const lanes = Math.min(todo.length, Math.max(1, this.deps.workers.backgroundThreads));
    const lane = async () => {
      while (next < todo.length) {
        const group = takeGroup(todo, next, lanes);
        next += group.length;
        const outcomes = await this.#outcomes(group);
        group.forEach(({ job }, i) => {
          // Only the write settles the job: it is finished once its outcome is committed.
          writes.push(this.#writes.write(outcomes[i]!).catch((error: unknown) => void failures.set(job.id, error)));
        });
      }
    };
    await Promise.all(Array.from({ length: lanes }, lane));
    await Promise.all(writes);
    return failures;
  }

  /**
   * The next queued fault for an ingestion that `wanted` says goes ahead (none is spent
   * for one that does not), once the ingestions before it have taken theirs.
   */
  #nextFault(wanted: Promise<boolean>): Promise<IngestFailureCode | undefined> {
    const fault = this.#faultTurn.then(async () => ((await wanted) ? this.deps.takeFault() : undefined));
    // A take that failed (the store out of reach) fails its own ingestion, not the next.
    this.#faultTurn = fault.catch(() => undefined);
    return fault;
  }

  /**
   * The outcomes of a group of pending sources, in its order. Several uploads are read in
   * one worker task; when that task fails (over its time or memory limit, or a bug), each
   * of its documents is read again alone, under its own limits, so that only the one at
   * fault fails and with its own reason (D-1222).
   */
  async #outcomes(group: Pending[]): Promise<IngestOutcome[]> {
    const [only] = group;
    if (group.length === 1 && only) return [await this.#outcome(only.row, only.job.payload, only.fault)];
    const clear = await Promise.all(
      group.map(({ fault }) =>
        fault.then(
          (f) => f === undefined,
          () => false,
        ),
      ),
    );
    const read = await this.#readTogether(group.filter((_, i) => clear[i]));
    const outcomes: IngestOutcome[] = [];
    // One by one: this lane takes one of the pool's threads at a time.
    for (const p of group) outcomes.push(read.get(p) ?? (await this.#outcome(p.row, p.job.payload, p.fault)));
    return outcomes;
  }

  /** The uploads of `group` read in one worker task: their outcomes, none when the task failed. */
  async #readTogether(group: Pending[]): Promise<Map<Pending, IngestOutcome>> {
    const docs: { pending: Pending; input: DocumentInput }[] = [];
    for (const pending of group) {
      // A stored document that cannot be read is left to `#outcome`, which names why.
      const input = await this.#storedDocument(pending.row, pending.job.payload).catch(() => undefined);
      if (input) docs.push({ pending, input });
    }
    const read = new Map<Pending, IngestOutcome>();
    if (docs.length === 0) return read;
    const embed = this.#embedInThread();
    let results: ({ prepared: Prepared } | { failed: IngestFailureCode })[];
    try {
      results = await this.deps.workers.run(
        EXTRACT_WORKER,
        'prepareEach',
        docs.map(({ input }) => ({ ...input, embed })),
        { background: true, transfer: docs.flatMap(({ input }) => movable(input.bytes)) },
      );
    } catch {
      return read;
    }
    for (const [i, { pending }] of docs.entries()) {
      const { row } = pending;
      try {
        read.set(pending, { row, ingested: await this.#finish(results[i]!) });
      } catch (error) {
        read.set(pending, this.#failed(row, error));
      }
    }
    return read;
  }

  /** What the pipeline makes of a pending source: ready with its chunks, or failed with a code. */
  async #outcome(row: KnowledgeSourceTable, payload: IngestPayload, queuedFault: Promise<IngestFailureCode | undefined>): Promise<IngestOutcome> {
    try {
      const fault = await queuedFault;
      if (fault !== undefined) throw new IngestError(fault, 'injected fault');
      return { row, ...(await this.#run(row, payload)) };
    } catch (error) {
      return this.#failed(row, error);
    }
  }

  /** A source failed by `error`: its code, and in the log when the pipeline did not expect it. */
  #failed(row: KnowledgeSourceTable, error: unknown): IngestOutcome {
    if (!(error instanceof IngestError)) this.deps.settings.log(`ingestion of ${row.id} failed`, error);
    return { row, failed: codeOf(error) };
  }

  /** Extracts, chunks, embeds: the document comes from the stored input, the claim, or the web. */
  async #run(row: KnowledgeSourceTable, payload: IngestPayload): Promise<{ ingested: Ingested; fetched?: Crawled }> {
    // A claim is two texts of at most 2,000 characters: no worker needed.
    if (row.kind === 'claim') return { ingested: await ingestClaim(storedClaim(row), row.title, this.deps.embedder) };
    if (row.kind === 'url') return this.#fetchAndIngest(row);
    const document = await this.#storedDocument(row, payload);
    // The stored bytes are read once: they may move to the thread rather than be copied.
    return { ingested: await this.#ingestDocument(document, movable(document.bytes)) };
  }

  /** An upload's stored document, as the pipeline takes it. */
  async #storedDocument(row: KnowledgeSourceTable, { ownTitle, charset }: IngestPayload): Promise<DocumentInput> {
    const [input] = await this.#input.execute({ sourceId: row.id });
    if (!input) throw new IngestError('ingest_failed', 'the stored document is missing');
    return {
      kind: 'upload',
      format: formatOfStored(row.content_type),
      bytes: input.content,
      ...(charset !== undefined && { charset }),
      title: ownTitle === true ? undefined : row.title,
      fallbackTitle: row.title,
      fileName: row.file_name ?? undefined,
    };
  }

  /** The built-in embedder runs in the worker thread; an embedder the user plugged in (maybe a network client) runs here. */
  #embedInThread(): boolean {
    return this.deps.embedder.constructor === HashingEmbedder;
  }

  /** A worker's answer for one document: the document ingested, or its failure thrown. */
  #finish(outcome: { prepared: Prepared } | { failed: IngestFailureCode }): Promise<Ingested> {
    if ('failed' in outcome) throw new IngestError(outcome.failed);
    return finishDocument(outcome.prepared, this.deps.embedder);
  }

  /**
   * A document through the pipeline in a worker thread (with the built-in embedder).
   * Going over the pool's time or memory limit fails the source with its reason.
   */
  async #ingestDocument(input: DocumentInput, transfer: ArrayBuffer[] = []): Promise<Ingested> {
    const embed = this.#embedInThread();
    let outcome: { prepared: Prepared } | { failed: IngestFailureCode };
    try {
      outcome = await this.deps.workers.run(EXTRACT_WORKER, 'prepare', { ...input, embed }, { background: true, transfer });
    } catch (error) {
      if (error instanceof WorkerLimitError)
        throw new IngestError(error.limit === 'time' ? LIMIT_FAILURES.timeLimit : LIMIT_FAILURES.memoryLimit, error.message);
      throw error;
    }
    return this.#finish(outcome);
  }

  async #fetchAndIngest(row: KnowledgeSourceTable): Promise<{ ingested: Ingested; fetched: Crawled }> {
    const fetched = await crawl(row.url!, this.deps.web, { timeoutMs: this.deps.settings.fetchTimeoutMs });
    const { format, charset } = formatOfResponse(fetched.contentType, fetched.body);
    const ingested = await this.#ingestDocument({ kind: 'url', format, bytes: fetched.body, charset, fallbackTitle: fetched.url });
    return { ingested, fetched };
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
    if (result) await this.#writes.termsAhead([{ row, ingested: result.ingested }]);
    await this.#writes.transaction([row.workspace_id], async (trx) => {
      const current = await this.#source(trx, row.workspace_id, row.id);
      if (current?.status !== 'ready' || current.next_sync_at !== job.payload.syncAt) return;
      const now = this.deps.clock.now();
      const nextSyncAt = iso(now + Number(current.sync_ttl_minutes) * MINUTE);
      if (!result || result.ingested.contentHash === current.content_hash) {
        await trx
          .updateTable('knowledge_sources')
          .set({
            error: failure ?? null,
            next_sync_at: nextSyncAt,
            updated_at: iso(now),
            // A failed fetch is a fetch too: `nextSyncAt = lastFetchedAt + ttl` holds
            // after it, as CONTRACT says, and the next try is a ttl away (D-1164).
            last_fetched_at: iso(now),
            ...(result && { resolved_url: result.fetched.url }),
          })
          .where('id', '=', row.id)
          .execute();
        // The version itself only moves when content, title or address changed.
        this.deps.changed(trx, row.workspace_id, [row.id]);
        await this.#writes.scheduleRecrawl(trx, current, nextSyncAt);
        return;
      }
      await this.#writes.writeReady(trx, [{ row: current, ingested: result.ingested, fetched: result.fetched }]);
      await this.deps.settled?.(trx, row.workspace_id, `${row.id}:${result.ingested.contentHash}`);
    });
  }
}

/**
 * The pending sources a lane takes next from `todo` at `next`: one, or, while the batch
 * holds enough for every lane to take as many (so the lanes still end together), up to
 * `DOCUMENTS_PER_TASK` uploads in a row of one workspace with `BYTES_PER_TASK` between
 * them. A batch mixes workspaces (they take turns, D-1118): another's lone document is
 * never read in one of this workspace's groups, so it waits for no more than before.
 */
function takeGroup(todo: readonly Pending[], next: number, lanes: number): Pending[] {
  const most = Math.min(DOCUMENTS_PER_TASK, Math.floor((todo.length - next) / lanes));
  const group = [todo[next]!];
  let bytes = 0;
  for (let i = next; i < todo.length && i - next < most; i++) {
    const { row } = todo[i]!;
    if (row.kind !== 'upload' || row.byte_size === null || row.workspace_id !== todo[next]!.row.workspace_id) break;
    bytes += row.byte_size;
    if (bytes > BYTES_PER_TASK) break;
    if (i > next) group.push(todo[i]!);
  }
  return group;
}

/** A promise and its resolve, settled once (later calls do nothing). */
function settleable<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
