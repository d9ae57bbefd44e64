import type { IngestFailureCode } from '../../platform/ingest-failures.js';
import { workerTask } from '../../platform/worker-task.js';
import { analyzeChunk, type ChunkAnalysis } from '../../text/analyze.js';
import type { Language } from '../../text/language.js';
import { loadMarked } from './chunk.js';
import { isJsonDocument } from './formats.js';
import { loadHtmlReader } from './extract-html.js';
import { IngestError } from './ingest-error.js';
import type { DocumentInput, Prepared } from './pipeline.js';
import { prepareDocument } from './prepare-document.js';
import { PreparedMemo } from './prepared-memo.js';
import { loadTokenizer } from './tokens.js';

/** This thread's documents read so far, by content (D-981). */
const memo = new PreparedMemo();

async function prepareOne(input: DocumentInput & { embed: boolean }): Promise<{ prepared: Prepared } | { failed: IngestFailureCode }> {
  try {
    return { prepared: await memo.get(input, () => prepareDocument(input, input.embed)) };
  } catch (error) {
    if (error instanceof IngestError) return { failed: error.code };
    // Structure nested deeper than a parser's recursion reaches (100,000 `<b>` or `>` in
    // a row): the file's fault, as an unreadable PDF page is (D-1086), not the service's.
    if (error instanceof RangeError && /call stack/i.test(error.message)) return { failed: 'unsupported_document' };
    throw error;
  }
}

/**
 * The knowledge pipeline's worker module: everything whose cost grows with a document
 * runs here, off the thread that serves requests. A failure the pipeline expects comes
 * back as its code (an `IngestError` cannot cross threads).
 */
export const prepare = workerTask(prepareOne);

/**
 * Several documents in one task, each as `prepare` reads it (D-1222): one round trip
 * through the serving thread for all of them. They share the task's limits; the caller
 * reads each again alone when the task goes over one.
 */
export const prepareEach = workerTask(async (inputs: (DocumentInput & { embed: boolean })[]) => {
  const outcomes: Awaited<ReturnType<typeof prepareOne>>[] = [];
  for (const input of inputs) outcomes.push(await prepareOne(input));
  return outcomes;
});

/** Whether a JSON upload parses (the rest of upload detection is cheap). */
export const isJson = workerTask((bytes: Uint8Array) => isJsonDocument(bytes));

/** Chunks stored by an earlier analysis, analysed again (`ANALYZER_ID` changed). */
export const analyze = workerTask((chunks: { text: string; title: string; lang: Language; headed: boolean }[]): ChunkAnalysis[] =>
  chunks.map((c) => analyzeChunk(c.text, c.title, c.lang, c.headed)),
);

/**
 * Loads what reading a web page or a Markdown document needs (the modules and the
 * tokenizer's vocabulary, most of a thread's first second) ahead of the first document,
 * so that a server's first uploads do not wait for it (D-1000).
 */
export const warm = workerTask(async (_: null): Promise<null> => {
  await Promise.all([loadTokenizer(), loadHtmlReader(), loadMarked()]);
  return null;
});

const NAV = `<nav>${['Home', 'Guides', 'Reference', 'Download', 'Support', 'About'].map((l) => `<a href="/${l.toLowerCase()}">${l}</a>`).join(' ')}</nav>`;
// A list of links outside any `<nav>`: enough link text for a page without `<main>` to go
// through Readability (D-982), as many uploaded pages do.
const RELATED = `<div class="related"><h3>Related pages</h3><ul>${Array.from({ length: 24 }, (_, i) => `<li><a href="/guide/${i + 1}">Related guide number ${i + 1}</a></li>`).join('')}</ul></div>`;

/**
 * Reads a Markdown text (the package's own documentation) as an uploaded web page, and
 * throws the result away (D-1220): before its first document, a thread runs the
 * pipeline's code in V8's interpreter, and reading a few dozen real pages first makes
 * it compiled code. `asPage` `main` marks its content with `<main>`, `readable` leaves
 * that to Readability. Nothing is kept: not the memo of documents read (D-981), nor
 * anything a later document's result depends on.
 */
export const rehearse = workerTask(async (input: { markdown: string; asPage: 'main' | 'readable' }): Promise<null> => {
  const { parse } = await loadMarked();
  const body = parse(input.markdown, { async: false });
  const content = input.asPage === 'main' ? `${NAV}<main>${body}</main>` : `${NAV}<div class="content">${body}</div>${RELATED}`;
  const html = `<!doctype html><html><head><title>Rehearsal</title></head><body>${content}</body></html>`;
  try {
    await prepareDocument({ kind: 'upload', format: 'html', bytes: new TextEncoder().encode(html), fallbackTitle: 'rehearsal' }, true);
  } catch (error) {
    // A section with nothing to chunk teaches the thread as much; anything else is a bug.
    if (!(error instanceof IngestError)) throw error;
  }
  return null;
});
