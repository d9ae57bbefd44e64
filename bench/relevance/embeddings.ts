import { openAiEmbedder } from '../../src/knowledge/openai-embedder.js';
import type { Embedder } from '../../src/knowledge/ports.js';

/**
 * `BENCH_RELEVANCE_EMBEDDINGS_URL` (and `_MODEL`): the emulator of each corpus embeds
 * through that OpenAI-compatible `/embeddings` endpoint, so `/query` fuses the lexical
 * and the vector rankings (D-306). Unset: the default offline ranking.
 */
export async function embeddingsFromEnv(): Promise<{ embedder: Embedder; label: string } | undefined> {
  const baseUrl = process.env.BENCH_RELEVANCE_EMBEDDINGS_URL;
  if (!baseUrl) return undefined;
  const model = process.env.BENCH_RELEVANCE_EMBEDDINGS_MODEL ?? 'local';
  // A small model on this CPU, shared with the ingestion, can take longer than the
  // emulator's 30 s for one document's chunks: a timeout would fail the document and
  // measure the machine's load instead of the ranking.
  const timeoutMs = Number(process.env.BENCH_RELEVANCE_EMBEDDINGS_TIMEOUT_MS ?? 600_000);
  return { embedder: openAiEmbedder({ baseUrl, model, timeoutMs }), label: `${model} at ${baseUrl}` };
}
