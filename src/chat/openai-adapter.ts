import { clearTimeout, setTimeout } from 'node:timers';
import { ServiceError } from '../platform/service-error.js';
import type { ChatModel, ChatReply, ChatTurnInput } from './chat-model.js';

export interface OpenAiChatModelOptions {
  /** The API root that holds `/chat/completions`: `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`... */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string;
  /** Default 0: the most repeatable answers the endpoint can give. */
  temperature?: number;
  /** Time allowed for the endpoint to start answering; default 30 s. */
  timeoutMs?: number;
  /** Another fetch (a proxy, a test double); default the global one. */
  fetch?: typeof fetch;
}

type Message = { role: 'system' | 'user' | 'assistant'; content: string };

const providerDown = (cause: unknown) =>
  new ServiceError('svc.service.unavailable', {
    detail: { en: 'The language model is unavailable; retry later.', es: 'El modelo de lenguaje no está disponible; reintente más tarde.' },
    cause,
  });

/** The messages of one turn: instructions with the passages, the earlier turns, the message. */
export function buildMessages(input: ChatTurnInput): Message[] {
  const { name, identity } = input.agent;
  const language = input.lang === 'es' ? 'Spanish' : 'English';
  const passages = input.passages.length ? input.passages.map((p, i) => `[${i + 1}] ${p.title}\n${p.text}`).join('\n\n') : '(none)';
  const system = [
    `You are ${name}, the assistant of ${identity.businessName}.${identity.description ? ` ${identity.description}` : ''}`,
    `Answer in ${language}, briefly, using only the passages below.`,
    'If they do not answer the question, say politely that you do not know yet.',
    '',
    'Passages:',
    passages,
  ].join('\n');
  return [{ role: 'system', content: system }, ...input.history.map((t) => ({ role: t.role, content: t.content })), { role: 'user', content: input.message }];
}

async function* deltas(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<string> {
  // Loaded on first use; see the report on moving eventsource-parser to dependencies.
  const { EventSourceParserStream } = await import('eventsource-parser/stream');
  const reader = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  try {
    for (;;) {
      if (signal.aborted) return;
      const { done, value } = await reader.read().catch((error: unknown) => {
        if (signal.aborted) return { done: true as const, value: undefined };
        throw providerDown(error);
      });
      if (done) return;
      if (value.data === '[DONE]') return;
      let chunk: { choices?: { delta?: { content?: unknown } }[] };
      try {
        chunk = JSON.parse(value.data);
      } catch (error) {
        throw providerDown(error);
      }
      const content = chunk.choices?.[0]?.delta?.content;
      if (typeof content === 'string' && content) yield content;
    }
  } finally {
    // Stops the upstream request too when the reader is released early.
    await reader.cancel().catch(() => {});
  }
}

/**
 * A `ChatModel` over an OpenAI-compatible `POST /chat/completions` endpoint (OpenAI,
 * Ollama, vLLM, LM Studio...), streamed. Off by default: pass it as the emulator's
 * `chatModel` option. The provider's own errors never reach a client: any failure is
 * `503 svc.service.unavailable`, before the start of a stream, or its `error` event after.
 */
export function openAiChatModel(options: OpenAiChatModelOptions): ChatModel {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  return {
    id: `openai-compatible:${options.model}@${base}`,
    async reply(input, { signal }): Promise<ChatReply> {
      // One signal for the whole request: the caller's, plus a deadline on the headers.
      const controller = new AbortController();
      if (signal.aborted) controller.abort();
      signal.addEventListener('abort', () => controller.abort(), { once: true });
      const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 30_000);
      let res: Response;
      try {
        res = await doFetch(`${base}/chat/completions`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'text/event-stream',
            ...(options.apiKey && { authorization: `Bearer ${options.apiKey}` }),
          },
          body: JSON.stringify({ model: options.model, messages: buildMessages(input), stream: true, temperature: options.temperature ?? 0 }),
          signal: controller.signal,
        });
      } catch (error) {
        throw providerDown(error);
      } finally {
        clearTimeout(timer);
      }
      if (!res.ok || !res.body) {
        await res.body?.cancel().catch(() => {});
        throw providerDown(new Error(`${base}/chat/completions answered ${res.status}${res.body ? '' : ' without a body'}`));
      }
      return { tokens: deltas(res.body, signal) };
    },
  };
}
