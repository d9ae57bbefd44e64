import { setTimeout } from 'node:timers';
import type { Kysely } from 'kysely';
import type { Database, Db } from '../../db/schema/index.js';
import { prepareQuery, type PreparedQuery } from '../../db/prepared.js';
import { afterCommit, transaction, type Tx } from '../../db/transaction.js';
import type { KnowledgeSourceTable } from '../../db/schema/knowledge.js';
import type { Job, JobQueue } from '../../jobs/queue.js';
import { sha256Hex } from '../../platform/crypto.js';
import { ServiceError } from '../../platform/service-error.js';
import { storedJson } from '../../platform/stored.js';
import { WorkerLimitError, workerModule, type WorkerPool } from '../../platform/worker-pool.js';
import type * as LexiconWorker from './lexicon.worker.js';
import type { Language } from '../../text/language.js';
import type { LearnedLexicon, LexiconSource } from './learn.js';
import { StoredLexiconSchema } from '../knowledge.schema.js';
import { Lexicon } from './lexicon.js';
import { nextTurn } from '../../platform/turn.js';
import { BoundedLru } from '../../platform/bounded-lru.js';

export const LEXICON_JOB = 'knowledge.lexicon';
const LEXICON_WORKER = workerModule<typeof LexiconWorker>(import.meta.url, 'lexicon.worker');

/**
 * What a workspace's lexicon is learned from at most, in characters of chunk text
 * (sources in id order until it is reached): about twice the largest bilingual set
 * measured; it bounds the worker's time and memory.
 */
const MAX_CHARS = 8_000_000;
/** Sources read per batch at most. */
const READ_BATCH = 500;
/** Tokens of chunk text per read at most (one source at least): tens of milliseconds of the serving thread. */
const READ_TOKENS = 100_000;
/**
 * How often a lookup waiting for the workspace's lexicon job looks again (D-1142): after
 * 2 ms, then twice as long each time up to this (a small workspace's job takes a few ms).
 */
const WAIT_POLL_MS = 20;

const NO_LEXICON: LearnedLexicon = { pairs: [], twins: 0, units: 0 };
/**
 * Lexicons this process learned that another workspace may take as they are (D-1223):
 * the most recent this many, of at most this many characters between them (the held-out
 * shape's, 859 word pairs and 183 pairs of twins, is under 50,000; `MAX_PAIRS` word pairs
 * take about 500,000, plus 135 a pair of twins).
 */
const REMEMBERED = { entries: 16, size: 8_000_000 };

/** The print of a workspace's ready sources: what its lexicon was learned from. */
async function sourcePrint(db: Db, workspaceId: string): Promise<{ print: string; rows: SourceRow[] }> {
  const rows = await db
    .selectFrom('knowledge_sources')
    .select(['id', 'kind', 'content_hash', 'file_name', 'url', 'resolved_url', 'lang', 'claim', 'token_count'])
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'ready')
    .orderBy('id')
    .execute();
  // What the sources hold, not their ids: the same knowledge loaded under other ids (a
  // relocated prebuilt demo, another seed) has the same lexicon and the same print.
  const lines = rows.map((r) => JSON.stringify([r.kind, r.content_hash, r.file_name, r.resolved_url ?? r.url, r.claim])).sort();
  const print = `lx_${sha256Hex(lines.join('\n')).slice(0, 24)}`;
  return { print, rows };
}

type SourceRow = Pick<KnowledgeSourceTable, 'id' | 'kind' | 'content_hash' | 'file_name' | 'url' | 'resolved_url' | 'lang' | 'claim' | 'token_count'>;

/**
 * Learns and keeps each workspace's bilingual lexicon (decisions, D-785, D-790): a job
 * that runs once the workspace has no source left `pending` (so that a burst of
 * uploads learns once, at its end), reads the ready sources' chunks, learns in a worker
 * thread, and writes the lexicon with the print of what it read, unless the sources
 * changed meanwhile (the job that change scheduled then writes). Reads are cached per
 * workspace until its knowledge changes.
 */
export class LexiconBuilder {
  readonly #cache = new Map<string, { print: string; lexicon: Lexicon }>();
  /** One build per workspace at a time in this process; the next waits for it. */
  readonly #running = new Map<string, Promise<void>>();
  /** Whether a source of the workspace is still pending: asked by every settling transaction, compiled once. */
  readonly #pending: PreparedQuery<{ workspaceId: string }, { id: string }>;
  /** Whether the workspace's lexicon job is due with no source pending: asked by every lookup, compiled once (D-1142). */
  readonly #due: PreparedQuery<{ workspaceId: string }, { id: string }>;
  /**
   * Lexicons this process learned, as stored, by the print of the sources they were
   * learned from (D-1223). The print is of what the sources hold (content hashes, file
   * names and URLs, claims) and learning reads nothing else, in an order of its own
   * (D-789): sources of one print, every chunk read, learn the same lexicon byte for byte
   * in whichever workspace they are. Only what this process learned itself is kept, never
   * a lexicon read from the store, so a row put there by hand teaches no other workspace.
   */
  readonly #learned = new BoundedLru<string>(REMEMBERED);

  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      jobs: JobQueue;
      workers: WorkerPool;
      /** Other processes write the same store: the stored print is read on every lookup. */
      shared?: boolean | undefined;
      /** A new lexicon is written by `trx`: what depends on it (cached answers) is stale once it commits. */
      changed: (trx: Tx, workspaceId: string) => void;
      log: (message: string, error?: unknown) => void;
      /** How long a lookup waits for a lexicon job of the workspace to end (D-1142); 0: never. */
      waitMs: number;
      /** Aborted when the service stops and runs no more jobs: a lookup waits no longer (D-1163). */
      stopping?: AbortSignal | undefined;
    },
  ) {
    const { db } = deps;
    this.#pending = prepareQuery(db, (p) =>
      db.selectFrom('knowledge_sources').select('id').where('workspace_id', '=', p('workspaceId')).where('status', '=', 'pending').limit(1),
    );
    this.#due = prepareQuery(db, (p) =>
      db
        .selectFrom('jobs')
        .select('id')
        .where('workspace_id', '=', p('workspaceId'))
        .where('kind', '=', LEXICON_JOB)
        .where('status', 'in', ['queued', 'running'])
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('knowledge_sources').select('id').where('workspace_id', '=', p('workspaceId')).where('status', '=', 'pending'))),
        )
        .limit(1),
    );
  }

  // A source still pending will settle and schedule the lexicon itself: building now would be undone.
  async #hasPendingSource(db: Db, workspaceId: string): Promise<boolean> {
    const rows = await this.#pending.execute({ workspaceId }, db);
    return rows.length > 0;
  }

  register(): void {
    this.deps.jobs.register(LEXICON_JOB, (job) => this.#build(job));
  }

  /**
   * Inside the transaction that settled a source (ready, failed, re-crawled with new
   * content) or deleted one: schedules the lexicon of its workspace, unless another
   * source is still pending (its settling schedules it). `event` names the change: one
   * job per change, so that a change while a build runs is never folded into it.
   */
  async schedule(trx: Db, workspaceId: string, event: string): Promise<void> {
    if (!this.deps.shared) {
      if (await this.#hasPendingSource(trx, workspaceId)) return;
    }
    await this.deps.jobs.enqueue(trx, { id: `job_lexicon_${sha256Hex(`${workspaceId}\n${event}`).slice(0, 20)}`, workspaceId, kind: LEXICON_JOB, payload: {} });
  }

  /** The workspace's lexicon as last learned (an empty one before any). */
  async get(workspaceId: string): Promise<Lexicon> {
    return (await this.#entry(workspaceId)).lexicon;
  }

  /** The print of the workspace's lexicon, '' without one (or an empty one): part of what a cached answer depends on. */
  async print(workspaceId: string): Promise<string> {
    const entry = await this.#entry(workspaceId);
    return entry.lexicon.size ? entry.print : '';
  }

  /**
   * Once every source of the workspace has settled, its lexicon job is queued and then
   * learns for a second or two: a query asked meanwhile would be answered without what
   * the knowledge now teaches, and again otherwise after it, the same question on the
   * same knowledge. So a lookup waits until no such job is queued or running (in any
   * process sharing the store), at most `waitMs`; then it goes on with the lexicon stored.
   * While a source is pending the knowledge is still changing and nothing waits.
   */
  async #settled(workspaceId: string): Promise<void> {
    for (let waited = 0, pause = 2; waited < this.deps.waitMs; waited += pause, pause = Math.min(2 * pause, WAIT_POLL_MS)) {
      if (this.deps.stopping?.aborted) return;
      if (!(await this.#due.execute({ workspaceId })).length) return;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  async #entry(workspaceId: string): Promise<{ print: string; lexicon: Lexicon }> {
    await this.#settled(workspaceId);
    const cached = this.#cache.get(workspaceId);
    if (cached && !this.deps.shared) return cached;
    const printRow = await this.deps.db.selectFrom('knowledge_lexicons').select('print').where('workspace_id', '=', workspaceId).executeTakeFirst();
    if (cached && cached.print === (printRow?.print ?? '')) return cached;
    const row =
      printRow && (await this.deps.db.selectFrom('knowledge_lexicons').select(['print', 'data']).where('workspace_id', '=', workspaceId).executeTakeFirst());
    const entry = row ? { print: row.print, lexicon: this.#read(workspaceId, row.data) } : { print: '', lexicon: EMPTY };
    this.#cache.set(workspaceId, entry);
    return entry;
  }

  /**
   * A stored lexicon under the schema `learnLexicon` writes it with. One the service did not
   * write (put into the store by hand) costs the expansion, never the query: an empty one,
   * and the log names the row (D-722, D-727).
   */
  #read(workspaceId: string, data: string): Lexicon {
    try {
      return new Lexicon(storedJson(StoredLexiconSchema, data, { table: 'knowledge_lexicons', row: workspaceId, column: 'data' }));
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      this.deps.log(`svc.knowledge: the stored lexicon of ${workspaceId} cannot be read; queries go without it`, error.cause);
      return EMPTY;
    }
  }

  /**
   * Each ready source of the workspace `lexicon` found a twin for, by id, to the ids of
   * its ready twins (D-1123, D-1124), by content hash: a source added since, or one whose
   * twins are gone, is not among them. A bilingual claim is its own twin.
   */
  async twinsOf(workspaceId: string, lexicon: Lexicon): Promise<ReadonlyMap<string, readonly string[]>> {
    const twins = lexicon.twins;
    if (!twins?.size) return new Map();
    const rows = await this.deps.db
      .selectFrom('knowledge_sources')
      .select(['id', 'content_hash'])
      .where('workspace_id', '=', workspaceId)
      .where('status', '=', 'ready')
      .execute();
    // Sources may share a content (the same file uploaded twice): a hash names them all.
    const idsOf = new Map<string, string[]>();
    for (const { id, content_hash: hash } of rows) {
      if (hash === null || !twins.has(hash)) continue;
      const ids = idsOf.get(hash);
      if (ids) ids.push(id);
      else idsOf.set(hash, [id]);
    }
    const out = new Map<string, string[]>();
    for (const [hash, ids] of idsOf) {
      const partners = twins.get(hash)!.flatMap((partner) => idsOf.get(partner) ?? []);
      if (!partners.length) continue;
      for (const id of ids) out.set(id, partners);
    }
    return out;
  }

  /** Forgets what memory holds of the workspace's lexicon (it was rewritten, or the state replaced). */
  forget(workspaceId?: string): void {
    if (workspaceId === undefined) this.#cache.clear();
    else this.#cache.delete(workspaceId);
  }

  async #build(job: Job): Promise<void> {
    const workspaceId = job.workspaceId;
    const before = this.#running.get(workspaceId);
    const run = (async () => {
      await before?.catch(() => {});
      await this.#learn(workspaceId);
    })();
    this.#running.set(workspaceId, run);
    try {
      await run;
    } finally {
      if (this.#running.get(workspaceId) === run) this.#running.delete(workspaceId);
    }
  }

  async #learn(workspaceId: string): Promise<void> {
    const db = this.deps.db;
    if (await this.#hasPendingSource(db, workspaceId)) return;
    const { print, rows } = await sourcePrint(db, workspaceId);
    const stored = await db.selectFrom('knowledge_lexicons').select('print').where('workspace_id', '=', workspaceId).executeTakeFirst();
    if (stored?.print === print) return;
    const remembered = this.#learned.get(print);
    const learned = remembered === undefined ? await this.#learnFrom(workspaceId, rows) : { data: remembered, whole: false };
    if (learned === undefined) return;
    const { data } = learned;
    await transaction(db, async (trx) => {
      // Processes sharing a store may write one workspace's lexicon at once (each runs the
      // job of its own change): its row is their lock (D-1126), claimed first, inserted
      // empty when there is none yet, so that the second waits for the first and then
      // sees what it wrote. Nothing else is locked: a workspace deletion under way, which
      // deletes this row before the workspace's, waits or is waited for, never both.
      await trx
        .insertInto('knowledge_lexicons')
        .values({ workspace_id: workspaceId, print: '', data: '' })
        .onConflict((oc) => oc.column('workspace_id').doUpdateSet((eb) => ({ print: eb.ref('knowledge_lexicons.print') })))
        .execute();
      const stored = await trx.selectFrom('knowledge_lexicons').select('print').where('workspace_id', '=', workspaceId).executeTakeFirstOrThrow();
      if (stored.print === print) return;
      const workspace = await trx.selectFrom('workspaces').select('id').where('id', '=', workspaceId).executeTakeFirst();
      // The sources changed while it learned (the job of that change writes), or the
      // workspace is gone: the row claimed empty goes again.
      if (!workspace || (await sourcePrint(trx, workspaceId)).print !== print) {
        if (stored.print === '') await trx.deleteFrom('knowledge_lexicons').where('workspace_id', '=', workspaceId).execute();
        return;
      }
      await trx.updateTable('knowledge_lexicons').set({ print, data }).where('workspace_id', '=', workspaceId).execute();
      afterCommit(trx, () => {
        this.#cache.delete(workspaceId);
        // Learned from what the print still names (checked above), every chunk of it read.
        if (learned.whole) this.#learned.set(print, data, data.length);
      });
      this.deps.changed(trx, workspaceId);
    });
  }

  /**
   * The lexicon of `rows` as stored, learned in a worker thread when they hold two
   * languages; `whole` when every chunk was read (a read cut at `MAX_CHARS` takes sources
   * in id order, and another workspace's ids would cut elsewhere). Undefined when learning
   * ran over a limit: nothing is written.
   */
  async #learnFrom(workspaceId: string, rows: SourceRow[]): Promise<{ data: string; whole: boolean } | undefined> {
    const db = this.deps.db;
    // One language only (no claim, chunks of one language): nothing to pair, and no text to read.
    const langs = await db.selectFrom('knowledge_chunks').select('lang').where('workspace_id', '=', workspaceId).groupBy('lang').execute();
    const bilingual = langs.length > 1 || rows.some((r) => r.kind === 'claim');
    // Nothing to remember: no thread ran.
    if (!bilingual) return { data: NO_LEXICON_DATA, whole: false };
    const { sources, whole } = await this.#sources(workspaceId, rows);
    if (new Set(sources.flatMap((s) => (s.claim ? ['en', 'es'] : s.langs))).size < 2) return { data: NO_LEXICON_DATA, whole: false };
    let learned: LearnedLexicon;
    try {
      learned = await this.deps.workers.run(
        LEXICON_WORKER,
        'learn',
        sources.map(({ langs: _, ...s }) => s),
        { background: true },
      );
    } catch (error) {
      if (!(error instanceof WorkerLimitError)) throw error;
      // Nothing is written: the lexicon learned before stays, and the next change of knowledge tries again.
      this.deps.log(`svc.knowledge: learning the lexicon of ${workspaceId} ran over its ${error.limit} limit; the one learned before stays`, error);
      return undefined;
    }
    return { data: new Lexicon(learned).serialize(), whole };
  }

  /** The ready sources' text, in id order, up to `MAX_CHARS`, with the languages of their chunks; `whole` when none was left out. */
  async #sources(workspaceId: string, rows: SourceRow[]): Promise<{ sources: Read[]; whole: boolean }> {
    const out: Read[] = [];
    const byId = new Map<string, Read>();
    for (const r of rows) {
      const source = {
        chunks: [] as string[],
        names: [r.file_name, r.resolved_url ?? r.url].filter((n): n is string => !!n),
        lang: r.lang === 'es' ? ('es' as const) : ('en' as const),
        ...(r.kind === 'claim' && r.claim ? { claim: JSON.parse(r.claim) as { es: string; en: string } } : {}),
        ...(r.content_hash !== null && { key: r.content_hash }),
        langs: [] as Language[],
      };
      out.push(source);
      byId.set(r.id, source);
    }
    let chars = 0;
    // Reads of about READ_TOKENS each, with a turn of the event loop between two: a
    // store's read holds the serving thread (D-1160).
    const batches: string[][] = [];
    let tokens = Number.POSITIVE_INFINITY;
    for (const r of rows) {
      if (r.kind === 'claim') continue;
      if (tokens >= READ_TOKENS || batches.at(-1)!.length >= READ_BATCH) {
        batches.push([]);
        tokens = 0;
      }
      batches.at(-1)!.push(r.id);
      tokens += Number(r.token_count);
    }
    let whole = true;
    for (const [k, batch] of batches.entries()) {
      if (chars >= MAX_CHARS) {
        whole = false;
        break;
      }
      if (k > 0) await nextTurn();
      const chunks = await this.deps.db
        .selectFrom('knowledge_chunks')
        .select(['source_id', 'text', 'lang'])
        .where('workspace_id', '=', workspaceId)
        .where('source_id', 'in', batch)
        .orderBy('source_id')
        .orderBy('position')
        .execute();
      for (const c of chunks) {
        if (chars >= MAX_CHARS) {
          whole = false;
          break;
        }
        const source = byId.get(c.source_id)!;
        source.chunks.push(c.text);
        if (!source.langs.includes(c.lang as Language)) source.langs.push(c.lang as Language);
        chars += c.text.length;
      }
    }
    return { sources: out.filter((s) => s.claim || s.chunks.length), whole };
  }
}

const EMPTY = new Lexicon(NO_LEXICON);
const NO_LEXICON_DATA = EMPTY.serialize();

/** A source as read for learning, with the languages its chunks are written in. */
type Read = LexiconSource & { chunks: string[]; langs: Language[] };
