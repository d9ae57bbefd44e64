import { createParser } from 'eventsource-parser';
import type { Emulator } from '../../emulator/emulator.js';
import type { Client } from '../support/client.js';

export interface StreamEvent {
  event: string;
  data: any;
}

/** Creates an agent and answers its id. */
export async function createAgent(api: Client, name = 'Ada', businessName = 'Acme'): Promise<string> {
  const res = await api.post('/v1/agents', { name, identity: { businessName } });
  if (res.status !== 201) throw new Error(`agent: ${res.status} ${res.text}`);
  return res.body.id;
}

/** Sends a streamed chat turn and answers the raw response (the caller reads it). */
export function streamRequest(emulator: Emulator, key: string, agentId: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return emulator.request(`/v1/agents/${agentId}/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

/**
 * Reads a server-sent event stream as a client would (eventsource-parser); with
 * `stopAfter`, cancels the body once that many events arrived (a client leaving).
 */
export async function readEvents(res: Response, stopAfter?: number): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  const parser = createParser({ onEvent: (e) => events.push({ event: e.event ?? 'message', data: JSON.parse(e.data) }) });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
    if (stopAfter !== undefined && events.length >= stopAfter) {
      await reader.cancel();
      break;
    }
  }
  return events;
}

/** The workspace's message credits, as `GET /v1/usage` reports them. */
export async function messages(api: Client): Promise<{ used: number; limit: number; remaining: number }> {
  const res = await api.get('/v1/usage');
  if (res.status !== 200) throw new Error(`usage: ${res.status} ${res.text}`);
  return res.body.messages;
}

export interface TextSource {
  title: string;
  text: string;
  topics?: string[];
  agentId?: string | null;
}

/**
 * Adds text sources through `POST /v1/knowledge/text` and waits for the queue to ingest
 * them (`POST /_emulator/queue/drain`); answers their ids in order.
 */
export async function ingest(api: Client, control: Client, sources: TextSource[]): Promise<string[]> {
  const ids: string[] = [];
  for (const source of sources) {
    const res = await api.post('/v1/knowledge/text', source);
    if (res.status !== 202) throw new Error(`knowledge text: ${res.status} ${res.text}`);
    ids.push(res.body.id);
  }
  const drained = await control.post('/_emulator/queue/drain');
  if (drained.status !== 200) throw new Error(`drain: ${drained.status} ${drained.text}`);
  return ids;
}
