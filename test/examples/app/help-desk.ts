// A small "app" as a user would write it: it calls the production API with fetch and
// node:https and knows nothing of the emulator. msw-app.test.ts runs it unchanged.
import https from 'node:https';
import { EventSourceParserStream } from 'eventsource-parser/stream';

export const PRODUCTION_API = 'https://api.example.com';

export class HelpDesk {
  constructor(
    private readonly apiKey: string,
    private readonly baseUrl = PRODUCTION_API,
  ) {}

  async #call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.apiKey}`, ...(body !== undefined && !(body instanceof FormData) && { 'content-type': 'application/json' }), ...headers },
      ...(body !== undefined && { body: body instanceof FormData ? body : JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  }

  createAssistant(name: string, businessName: string): Promise<{ id: string; name: string }> {
    return this.#call('POST', '/v1/agents', { name, identity: { businessName } });
  }

  teach(title: string, text: string): Promise<{ id: string; status: string }> {
    return this.#call('POST', '/v1/knowledge/text', { title, text });
  }

  uploadImage(bytes: Uint8Array<ArrayBuffer>, fileName: string): Promise<{ id: string; url: string; contentType: string }> {
    const form = new FormData();
    form.set('file', new File([bytes], fileName));
    return this.#call('POST', '/v1/assets', form);
  }

  /** Signed file URLs need no key. */
  async download(url: string): Promise<{ contentType: string | null; bytes: Uint8Array }> {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
    return { contentType: res.headers.get('content-type'), bytes: new Uint8Array(await res.arrayBuffer()) };
  }

  /** Streams a chat turn; calls `onToken` as tokens arrive and answers the whole reply. */
  async ask(agentId: string, message: string, onToken: (text: string) => void): Promise<string> {
    const res = await fetch(`${this.baseUrl}/v1/agents/${agentId}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.apiKey}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ message }),
    });
    if (!res.ok || !res.body) throw new Error(`chat: ${res.status}`);
    const events = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
    // A reader, not `for await`: the DOM lib types a ReadableStream without async iteration.
    const reader = events.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      const event = next.value;
      const data = JSON.parse(event.data);
      if (event.event === 'token') onToken(data.text);
      if (event.event === 'done') return data.reply;
      if (event.event === 'error') throw new Error(`chat: ${data.code}`);
    }
    throw new Error('chat: the stream ended without done');
  }

  /** Older code that still uses node:https. */
  whoAmI(): Promise<{ status: number; body: any }> {
    return new Promise((resolve, reject) => {
      const req = https.request(`${this.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${this.apiKey}` } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end();
    });
  }
}
