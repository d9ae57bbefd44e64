import { clearTimeout, setTimeout } from 'node:timers';
import type { Embedder } from './ports.js';

export interface OpenAiEmbedderOptions {
  /** The API root that holds `/embeddings`: `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`... */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string;
  /**
   * The vectors' length. When given it is also sent (models that can shorten their
   * vectors do); when not, the first answer tells it.
   */
  dimensions?: number;
  /** Texts per request; default 64. */
  batchSize?: number;
  /** Time allowed for one request, answer included; default 30 s. */
  timeoutMs?: number;
  /** Another fetch (a proxy, a test double); default the global one. */
  fetch?: typeof fetch;
  /**
   * Times a request is sent again when the connection fails before an answer (reset,
   * refused, closed); default 2. An answer, even an error status, and a timeout are final.
   */
  retries?: number;
}

/**
 * Why an embedding request failed, for the operator's log: never shown to a client
 * (ingestion fails the source with `ingest_failed`; a query falls back, see retrieval).
 */
export class EmbeddingError extends Error {
  override readonly name = 'EmbeddingError';
}

/** The connection failed before any answer: the only failure `request` sends again. */
class ConnectionError extends EmbeddingError {}

function normalised(values: readonly number[]): Float32Array {
  const v = Float32Array.from(values);
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

interface EmbeddingsAnswer {
  data?: { index?: unknown; embedding?: unknown }[];
}

/**
 * An `Embedder` over an OpenAI-compatible `POST /embeddings` endpoint (OpenAI, Ollama,
 * llama.cpp, vLLM, LM Studio, text-embeddings-inference...): for users with a model
 * server, whose vectors understand paraphrases that words alone miss. Off by default:
 * pass it as the emulator's `embedder` option (or `--embeddings-url`). Texts go in
 * batches; vectors come back L2-normalised, in order. Any failure (network, status,
 * timeout, an answer of the wrong shape or length) is an `EmbeddingError`.
 */
export function openAiEmbedder(options: OpenAiEmbedderOptions): Embedder & { readonly dimensions: number } {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 64));
  const timeoutMs = options.timeoutMs ?? 30_000;
  let dimensions = options.dimensions ?? 0;

  const retries = Math.max(0, Math.floor(options.retries ?? 2));

  /**
   * One batch, sent again when the connection fails before any answer (D-1023): a model
   * server that blocks its event loop while it computes closes an idle kept-alive socket
   * just as the next request is written on it, and one such reset failed a whole source.
   * Embedding is idempotent, so sending the same texts again is safe.
   */
  async function request(texts: string[]): Promise<Float32Array[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await requestOnce(texts);
      } catch (error) {
        if (!(error instanceof ConnectionError) || attempt >= retries) throw error;
      }
    }
  }

  async function requestOnce(texts: string[]): Promise<Float32Array[]> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    let answer: EmbeddingsAnswer;
    let answered = false;
    try {
      const res = await doFetch(`${base}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(options.apiKey && { authorization: `Bearer ${options.apiKey}` }) },
        body: JSON.stringify({ model: options.model, input: texts, encoding_format: 'float', ...(options.dimensions && { dimensions: options.dimensions }) }),
        signal: controller.signal,
      });
      answered = true;
      if (!res.ok) {
        await res.body?.cancel().catch(() => {});
        throw new EmbeddingError(`${base}/embeddings answered ${res.status}`);
      }
      answer = (await res.json()) as EmbeddingsAnswer;
    } catch (error) {
      if (error instanceof EmbeddingError) throw error;
      // fetch() threw before any answer: the connection failed (reset, refused, closed).
      const Failure = controller.signal.aborted || answered ? EmbeddingError : ConnectionError;
      throw new Failure(
        controller.signal.aborted ? `${base}/embeddings gave no answer within ${timeoutMs} ms` : `${base}/embeddings failed: ${(error as Error).message}`,
        { cause: error },
      );
    } finally {
      clearTimeout(timer);
    }
    const data = Array.isArray(answer?.data) ? answer.data : [];
    if (data.length !== texts.length) throw new EmbeddingError(`${base}/embeddings answered ${data.length} vectors for ${texts.length} texts`);
    const out: Float32Array[] = new Array(texts.length);
    data.forEach((item, i) => {
      const at = typeof item.index === 'number' ? item.index : i;
      const values = item.embedding;
      if (!Array.isArray(values) || values.length === 0 || !values.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw new EmbeddingError(`${base}/embeddings answered a vector that is not a list of numbers`);
      }
      if (!Number.isInteger(at) || at < 0 || at >= texts.length || out[at]) throw new EmbeddingError(`${base}/embeddings answered vectors out of order`);
      if (dimensions === 0) dimensions = values.length;
      if (values.length !== dimensions) throw new EmbeddingError(`${base}/embeddings answered ${values.length} dimensions, expected ${dimensions}`);
      out[at] = normalised(values as number[]);
    });
    return out;
  }

  return {
    // The vectors of another model or length are not comparable: a new id re-embeds.
    id: `openai-compatible:${options.model}@${base}${options.dimensions ? `#${options.dimensions}` : ''}`,
    get dimensions() {
      return dimensions;
    },
    async embed(texts: string[]): Promise<Float32Array[]> {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) out.push(...(await request(texts.slice(i, i + batchSize))));
      return out;
    },
  };
}
