import type { CoreDeps } from '../core.js';
import type { SqlDialect } from '../db/dialects/sql-dialect.js';
import { columnParams, prepareQuery, rowParams, type PreparedQuery, type RowParams } from '../db/prepared.js';
import type { Db } from '../db/schema/index.js';
import { lockAgentRow, lockWorkspaceRows } from '../db/row-locks.js';
import { transaction, type Tx } from '../db/transaction.js';
import type { KnowledgeInputTable, KnowledgeSourceTable } from '../db/schema/knowledge.js';
import { paginate, type ListPage, type ListParams } from '../platform/pagination.js';
import type { Coherence } from '../platform/coherence.js';
import { ServiceError } from '../platform/service-error.js';
import { iso } from '../platform/time.js';
import { WorkerLimitError, type WorkerPool } from '../platform/worker-pool.js';
import { judgeUrl } from './fetch/url-policy.js';
import { INGEST_JOB, Ingestion, type IngestPayload } from './ingestion.js';
import { EXTRACT_WORKER } from './pipeline/worker-ref.js';
import type { KnowledgeIndex } from './knowledge-index.js';
import { crawledUrl, type ClaimAdd, type Source, type TextAdd, type UploadAdd, type UrlAdd } from './knowledge.schema.js';
import { declaredCharset, guessUploadFormat, isBlankFile, MEDIA_TYPES, type DocFormat } from './pipeline/formats.js';
import { TITLE_MAX } from './pipeline/pipeline.js';
import type { AgentLookup, Embedder, IngestFaultHook, Web } from './ports.js';
import { pendingRow, toSource } from './sources.js';
import { SqlKnowledgeIndex } from './sql-index.js';
import { TermDictionary } from './term-dictionary.js';
import { listTopics, mergeTopics, type TopicCount } from './topics.js';
import { LexiconBuilder } from './lexicon/lexicon-builder.js';

/** What knowledge is built from: the core, its dialect's full-text index, and its ports. */
export interface KnowledgeDeps extends CoreDeps {
  dialect: SqlDialect;
  workers: WorkerPool;
  agents: AgentLookup;
  embedder: Embedder;
  /** Where URL sources are fetched from. */
  web: Web;
  ingestFaults: IngestFaultHook;
  /** How memory learns of changes; `coherence.shared`: other processes write the same store too. */
  coherence: Coherence;
  /** Aborted when the service stops: a lookup no longer waits for a lexicon job (D-1163). */
  stopping?: AbortSignal | undefined;
}

/** Every column of a source row (`pendingRow` sets them all): one insert, compiled once, names them all. */
const SOURCE_COLUMNS = Object.keys(
  pendingRow({ id: '', workspace_id: '', agent_id: null, kind: '', title: '', topics: '', now: '' }),
) as (keyof KnowledgeSourceTable & string)[];
const INPUT_COLUMNS: (keyof KnowledgeInputTable & string)[] = ['source_id', 'workspace_id', 'content', 'created_at'];

/** A title from the start of a text, cut at a word when it is too long. */
function titleFrom(text: string): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= TITLE_MAX) return clean;
  const cut = clean.slice(0, TITLE_MAX - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > 60 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * Knowledge sources (API.md, Knowledge; CONTRACT, Knowledge): adds validated and
 * accepted `pending` in one transaction with their ingestion job, listing, deletion,
 * topics, and the index retrieval reads. Ingestion itself runs in `Ingestion`.
 */
export class KnowledgeService {
  readonly #index: SqlKnowledgeIndex;
  /** The statements every add runs, compiled once (D-1055): kysely builds and compiles a query on each call otherwise. */
  readonly #count: PreparedQuery<{ workspaceId: string }, { n: number | string | bigint }>;
  readonly #insertSource: PreparedQuery<RowParams<KnowledgeSourceTable>, unknown>;
  readonly #insertInput: PreparedQuery<RowParams<KnowledgeInputTable>, unknown>;
  /** Each workspace's bilingual lexicon, learned from its own translations (D-785). */
  readonly lexicons: LexiconBuilder;

  constructor(private readonly deps: KnowledgeDeps) {
    const { db } = deps;
    this.#count = prepareQuery(db, (p) =>
      db
        .selectFrom('knowledge_sources')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', p('workspaceId')),
    );
    this.#insertSource = prepareQuery<RowParams<KnowledgeSourceTable>, unknown>(db, (p) =>
      db.insertInto('knowledge_sources').values(columnParams<KnowledgeSourceTable>(SOURCE_COLUMNS, p)),
    );
    this.#insertInput = prepareQuery<RowParams<KnowledgeInputTable>, unknown>(db, (p) =>
      db.insertInto('knowledge_inputs').values(columnParams<KnowledgeInputTable>(INPUT_COLUMNS, p)),
    );
    const shared = deps.coherence.shared;
    const terms = new TermDictionary(deps.db, { shared, replacements: (db) => deps.coherence.replacements(db) });
    this.#index = new SqlKnowledgeIndex({ db: deps.db, dialect: deps.dialect, embedder: deps.embedder, workers: deps.workers, terms, shared });
    this.lexicons = new LexiconBuilder({
      db: deps.db,
      jobs: deps.jobs,
      workers: deps.workers,
      shared,
      log: deps.settings.log,
      waitMs: deps.settings.lexiconWaitMs,
      stopping: deps.stopping,
      changed: (trx, workspaceId) => this.#index.changed(trx, workspaceId),
    });
    this.lexicons.register();
    new Ingestion({
      db: deps.db,
      clock: deps.clock,
      jobs: deps.jobs,
      settings: deps.settings,
      embedder: deps.embedder,
      workers: deps.workers,
      web: deps.web,
      takeFault: deps.ingestFaults,
      terms,
      changed: (trx, workspaceId, sourceIds) => this.#index.changed(trx, workspaceId, sourceIds),
      settled: (trx, workspaceId, event) => this.lexicons.schedule(trx, workspaceId, event),
    }).register();
  }

  /** What retrieval and chat read: eligible chunks, lexical search and the knowledge version. */
  get index(): KnowledgeIndex {
    return this.#index;
  }

  /** Waits for retrieval's built indexes being written (before the store closes). */
  async flush(): Promise<void> {
    await this.#index.flush();
  }

  /** Forgets what memory derived from the tables (after a state import replaced them). */
  async afterImport(): Promise<void> {
    this.#index.forget();
    this.lexicons.forget();
  }

  /** Some workspace's settings or existence changed: knowledge versions are recomputed. */
  workspacesChanged(): void {
    this.#index.workspacesChanged();
    this.lexicons.forget();
  }

  /** Knowledge documents of the workspace (the `knowledgeDocuments` plan cap and usage count). */
  async count(workspaceId: string, db: Db = this.deps.db): Promise<number> {
    const [row] = await this.#count.execute({ workspaceId }, db);
    return Number(row!.n);
  }

  async getSource(workspaceId: string, sourceId: string, db: Db = this.deps.db): Promise<Source | undefined> {
    const row = await db.selectFrom('knowledge_sources').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', sourceId).executeTakeFirst();
    return row && toSource(row);
  }

  async getSourceOrThrow(workspaceId: string, sourceId: string, db: Db = this.deps.db): Promise<Source> {
    const source = await this.getSource(workspaceId, sourceId, db);
    if (!source) throw new ServiceError('svc.knowledge.source_not_found');
    return source;
  }

  /** Sources newest first; with `agentId`, that agent's own sources only. */
  async list(workspaceId: string, params: ListParams & { agentId?: string | undefined }): Promise<ListPage<Source>> {
    let query = this.deps.db.selectFrom('knowledge_sources').selectAll().where('workspace_id', '=', workspaceId);
    if (params.agentId !== undefined) {
      await this.deps.agents.getAgentOrThrow(workspaceId, params.agentId);
      query = query.where('agent_id', '=', params.agentId);
    }
    return paginate(this.deps.cursors, `${workspaceId}:knowledge_sources:${params.agentId ?? ''}`, params, query, toSource);
  }

  /** A text or Markdown document (`kind: upload`, `contentType: text/markdown`). */
  async addText(workspaceId: string, input: TextAdd): Promise<Source> {
    const bytes = Buffer.from(input.text, 'utf8');
    return this.#accept(
      workspaceId,
      input.agentId,
      {
        kind: 'upload',
        title: input.title,
        topics: JSON.stringify(input.topics),
        content_type: MEDIA_TYPES.markdown,
        byte_size: bytes.byteLength,
      },
      bytes,
    );
  }

  /** An uploaded file: Text, Markdown, HTML, CSV, JSON or PDF, judged by its bytes and name. */
  async addUpload(workspaceId: string, input: UploadAdd): Promise<Source> {
    const bytes = new Uint8Array(await input.file.arrayBuffer());
    // As a blank text is refused on /v1/knowledge/text, not accepted to fail later (D-071, D-1109).
    if (isBlankFile(bytes)) throw new ServiceError('svc.knowledge.source_invalid', { errors: [{ field: 'file', reason: 'must not be blank' }] });
    const format = await this.#detectFormat(input.file, bytes);
    if (!format)
      throw new ServiceError('svc.knowledge.format_unsupported', {
        errors: [{ field: 'file', reason: 'not a text, Markdown, HTML, CSV, JSON or PDF document' }],
      });
    const fileName = input.file.name.trim();
    // The charset the part declares is read as a URL's header is (D-1190); it rides on the job.
    const charset = format === 'pdf' ? undefined : declaredCharset(input.file.type);
    // Without a title, the file name stands in until the document's own is read (D-304).
    return this.#accept(
      workspaceId,
      input.agentId ?? null,
      {
        kind: 'upload',
        title: input.title ?? (fileName ? titleFrom(fileName) : 'Untitled upload'),
        topics: JSON.stringify(input.topics),
        file_name: fileName || null,
        content_type: MEDIA_TYPES[format],
        byte_size: bytes.byteLength,
      },
      bytes,
      input.title === undefined,
      charset,
    );
  }

  /** The upload's format; a JSON file is parsed in a worker, and a parse over its limits is refused. */
  async #detectFormat(file: File, bytes: Uint8Array): Promise<DocFormat | undefined> {
    const format = guessUploadFormat(file.name, file.type, bytes);
    if (format !== 'json') return format;
    try {
      return (await this.deps.workers.run(EXTRACT_WORKER, 'isJson', bytes)) ? format : undefined;
    } catch (error) {
      if (!(error instanceof WorkerLimitError)) throw error;
      throw new ServiceError('svc.knowledge.format_unsupported', {
        errors: [{ field: 'file', reason: `checking the file ran over its ${error.limit} limit` }],
      });
    }
  }

  /** A web page, fetched on the queue; literal blocked addresses and `localhost` are refused at once. */
  async addUrl(workspaceId: string, input: UrlAdd): Promise<Source> {
    const url = new URL(crawledUrl(input.url));
    const verdict = judgeUrl(url);
    if (!verdict.ok) throw new ServiceError('svc.knowledge.url_not_allowed', { errors: [{ field: 'url', reason: 'not allowed' }] });
    return this.#accept(workspaceId, input.agentId, {
      kind: 'url',
      title: titleFrom(url.href),
      topics: JSON.stringify(input.topics),
      url: url.href,
      sync_ttl_minutes: input.syncTtlMinutes,
    });
  }

  /** A bilingual claim (`kind: claim`), titled by the start of its English text. */
  async addClaim(workspaceId: string, input: ClaimAdd): Promise<Source> {
    return this.#accept(workspaceId, input.agentId, {
      kind: 'claim',
      title: titleFrom(input.claim.en),
      topics: JSON.stringify(input.topics),
      claim: JSON.stringify({ es: input.claim.es, en: input.claim.en }),
    });
  }

  /**
   * Inserts a `pending` source, its document and its ingestion job in one transaction;
   * `ownTitle`: the document's own title replaces `fields.title` when it has one;
   * `charset`: the one the document was declared in (an upload's part, D-1190).
   */
  async #accept(
    workspaceId: string,
    agentId: string | null,
    fields: Pick<KnowledgeSourceTable, 'kind' | 'title' | 'topics'> & Partial<KnowledgeSourceTable>,
    document?: Uint8Array,
    ownTitle = false,
    charset?: string,
  ): Promise<Source> {
    const row = await this.deps.db.transaction().execute(async (trx) => {
      // The workspace's row (D-1140), then the agent's (D-1132), in the order deletions take
      // them: a deletion under way in another process commits first and this add finds the
      // workspace or the agent gone, or waits for this add and deletes its source too.
      await lockWorkspaceRows(trx, [workspaceId]);
      if (agentId !== null && !(await lockAgentRow(trx, workspaceId, agentId))) throw new ServiceError('svc.agent.not_found');
      await this.deps.assertCapacity(trx, workspaceId, 'knowledgeDocuments', () => this.count(workspaceId, trx));
      const now = iso(this.deps.clock.now());
      const row = pendingRow({ ...fields, id: this.deps.ids.next('src'), workspace_id: workspaceId, agent_id: agentId, now });
      await this.#insertSource.execute(rowParams(row), trx);
      if (document) await this.#insertInput.execute({ source_id: row.id, workspace_id: workspaceId, content: document, created_at: now }, trx);
      const payload: IngestPayload = { sourceId: row.id, ...(ownTitle && { ownTitle }), ...(charset !== undefined && { charset }) };
      await this.deps.jobs.enqueue(trx, { workspaceId, kind: INGEST_JOB, payload });
      return row;
    });
    this.deps.jobs.kick();
    return toSource(row);
  }

  /** Deletes a source with its chunks: they leave answers at once. */
  async delete(workspaceId: string, sourceId: string): Promise<{ sourceId: string; deleted: true }> {
    await transaction(this.deps.db, async (trx) => {
      // The workspace's row before any of its sources' rows, as an ingestion commit takes them (D-1128).
      await lockWorkspaceRows(trx, [workspaceId]);
      await this.getSourceOrThrow(workspaceId, sourceId, trx);
      await trx.deleteFrom('knowledge_chunks').where('workspace_id', '=', workspaceId).where('source_id', '=', sourceId).execute();
      await trx.deleteFrom('knowledge_inputs').where('workspace_id', '=', workspaceId).where('source_id', '=', sourceId).execute();
      await trx.deleteFrom('knowledge_sources').where('workspace_id', '=', workspaceId).where('id', '=', sourceId).execute();
      await this.lexicons.schedule(trx, workspaceId, `${sourceId}:deleted`);
      this.#index.changed(trx, workspaceId, [sourceId]);
    });
    this.deps.jobs.kick();
    return { sourceId, deleted: true };
  }

  /** Deletes an agent's own sources with their chunks, in the agent's deleting transaction. */
  async deleteAgentSources(trx: Tx, workspaceId: string, agentId: string): Promise<{ sourcesDeleted: number }> {
    await trx.deleteFrom('knowledge_chunks').where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId).execute();
    const ids = trx.selectFrom('knowledge_sources').select('id').where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId);
    await trx.deleteFrom('knowledge_inputs').where('workspace_id', '=', workspaceId).where('source_id', 'in', ids).execute();
    const deleted = await trx.deleteFrom('knowledge_sources').where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId).executeTakeFirst();
    // The agent's built scope index goes with it (decisions, D-603): nothing would ever read it again.
    await trx.deleteFrom('knowledge_scope_indexes').where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId).execute();
    if (Number(deleted.numDeletedRows) > 0) await this.lexicons.schedule(trx, workspaceId, `${agentId}:deleted`);
    this.#index.changed(trx, workspaceId);
    return { sourcesDeleted: Number(deleted.numDeletedRows) };
  }

  /** Topics of the pool (no `agentId`) or of one agent's own sources, with source counts. */
  async listTopics(workspaceId: string, params: ListParams & { agentId?: string | undefined }): Promise<ListPage<TopicCount>> {
    if (params.agentId !== undefined) await this.deps.agents.getAgentOrThrow(workspaceId, params.agentId);
    return listTopics(this.deps.db, this.deps.cursors, workspaceId, params.agentId ?? null, params);
  }

  /** Rewrites topic `from` as `into` on every source of the scope. */
  async mergeTopics(
    workspaceId: string,
    input: { from: string; into: string; agentId: string | null },
  ): Promise<{ from: string; into: string; sourcesUpdated: number }> {
    if (input.from === input.into) {
      throw new ServiceError('svc.knowledge.topic_invalid', { errors: [{ field: 'into', reason: 'must differ from from' }] });
    }
    const updated = await transaction(this.deps.db, async (trx) => {
      await lockWorkspaceRows(trx, [workspaceId]);
      if (input.agentId !== null) await this.deps.agents.getAgentOrThrow(workspaceId, input.agentId, trx);
      const updated = await mergeTopics(trx, workspaceId, input.agentId, input.from, input.into, iso(this.deps.clock.now()));
      this.#index.changed(trx, workspaceId, updated);
      return updated;
    });
    return { from: input.from, into: input.into, sourcesUpdated: updated.length };
  }
}
