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
  return { embedder: openAiEmbedder({ baseUrl, model }), label: `${model} at ${baseUrl}` };
}
