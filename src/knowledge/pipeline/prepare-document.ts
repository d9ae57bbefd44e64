import { sha256Hex } from '../../platform/crypto.js';
import { analyzeChunk, hasHeading } from '../../text/analyze.js';
import { detectDocumentLanguage } from '../../text/detect-language.js';
import { chunkMarkdown } from './chunk.js';
import { embedText } from './embedder.js';
import { extractText } from './extract.js';
import { IngestError } from './ingest-error.js';
import { type DocumentInput, type Prepared, TITLE_MAX } from './pipeline.js';
import { summarize } from './summary.js';
import { countByParagraphs, loadTokenizer, remembering } from './tokens.js';

// Apart from `pipeline.ts`, which the serving thread loads: only the worker threads load
// the readers of formats (linkedom, PDF, html-encoding-sniffer, which `require()`s an ES
// module), so a test runner whose loader cannot do that (Jest) loads the library (D-1231).

/**
 * The CPU side of the pipeline for one document: text extraction, language, chunks
 * with token counts and their analysis for retrieval (each chunk's language is the one
 * most of its words are written in), the index card, and with `embed` the built-in
 * embedder's vectors.
 * Runs in a worker thread (`extract.worker.ts`); pure: the same input gives the same
 * output on every run and every thread.
 */
export async function prepareDocument(input: DocumentInput, embed: boolean): Promise<Prepared> {
  // The document's count reads its blocks' counts again (D-1001).
  const tokenizer = remembering(await loadTokenizer());
  const { text, title: found } = await extractText(input.format, input.bytes, input.charset);
  const title = (input.title ?? found ?? input.fallbackTitle).slice(0, TITLE_MAX);
  const lang = detectDocumentLanguage(text);
  const headed = hasHeading(text);
  const chunks = (await chunkMarkdown(text, tokenizer)).map((c) => ({ ...c, analysis: analyzeChunk(c.text, title, lang, headed) }));
  if (chunks.length === 0) throw new IngestError('unsupported_document', 'no chunks');
  return {
    title,
    lang,
    chunks,
    tokenCount: countByParagraphs(tokenizer, text),
    summary: summarize({ kind: input.kind, format: input.format, title, lang, text }),
    contentHash: sha256Hex(`${title}\n${text}`),
    vectors: embed ? chunks.map((c) => embedText(c.text)) : undefined,
  };
}
