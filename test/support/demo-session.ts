import { request as httpRequest } from 'node:http';
import type { SendOptions } from '../../emulator/client.js';

export const DEMO_KEY = 'svc_test_DemoFullAccessKey000000000000001_0k1rIW';
export const DEMO_READ_ONLY_KEY = 'svc_test_DemoReadOnlyKey00000000000000001_1YUbBi';

export interface Answer {
  status: number;
  headers: [string, string][];
  text: string;
}

/** Sends one request (a path, or an absolute URL for a hosted site) and reads the whole answer. */
export type Sender = (method: string, path: string, options?: SendOptions) => Promise<Answer>;

// Added by node's HTTP server, not by the emulator.
const TRANSPORT = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

function toRequest(base: string, method: string, path: string, options: SendOptions): Request {
  const headers: Record<string, string> = {};
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: RequestInit['body'] | undefined;
  if (options.body instanceof FormData || typeof options.body === 'string') body = options.body;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  return new Request(new URL(path, base), { method, headers: { ...headers, ...options.headers }, ...(body !== undefined && { body }) });
}

async function answer(res: Response): Promise<Answer> {
  return { status: res.status, headers: [...res.headers].filter(([name]) => !TRANSPORT.has(name)), text: await res.text() };
}

/** A sender that answers in process. */
export function inProcess(target: { fetch(request: Request): Promise<Response> }): Sender {
  return async (method, path, options = {}) => answer(await target.fetch(toRequest('http://localhost', method, path, options)));
}

/**
 * A sender over HTTP to a listening emulator at `url`. An absolute URL (a hosted site,
 * `http://cafe-aurora.localhost/`) goes to the same address with that Host, as a browser
 * that resolves `*.localhost` sends it.
 */
export function overHttp(url: string): Sender {
  const server = new URL(url);
  return async (method, path, options = {}) => {
    const req = toRequest(url, method, path, options);
    const target = new URL(req.url);
    const body = Buffer.from(await req.arrayBuffer());
    const headers: Record<string, string> = {
      ...Object.fromEntries(req.headers),
      host: `${target.hostname}:${server.port}`,
      'content-length': String(body.length),
    };
    return new Promise((resolve, reject) => {
      const sent = httpRequest({ host: server.hostname, port: server.port, method, path: target.pathname + target.search, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const list: [string, string][] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) list.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!]);
          list.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
          resolve({ status: res.statusCode!, headers: list.filter(([name]) => !TRANSPORT.has(name)), text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      });
      sent.on('error', reject);
      sent.end(body);
    });
  };
}

/**
 * A scripted session over the bundled demo, every answer recorded whole (status,
 * headers, body): ids and cursors, keys, sources and their chunks, retrieval, chat
 * (JSON and streamed), the site and its files, new ids after the load, a re-crawl on the
 * emulated clock, reset and the state export.
 */
export async function demoSession(send: Sender): Promise<string[]> {
  const out: string[] = [];
  const record = async (method: string, path: string, options: SendOptions = {}) => {
    const res = await send(method, path, options);
    out.push(`${method} ${path} ${res.status} ${JSON.stringify(res.headers)} ${res.text}`);
    if (res.status >= 500) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return { ...res, body: res.text.startsWith('{') ? JSON.parse(res.text) : undefined };
  };
  const key = DEMO_KEY;
  await record('GET', '/v1/me', { key });
  await record('GET', '/v1/me', { key: DEMO_READ_ONLY_KEY });
  const agentsPage = (await record('GET', '/v1/agents?limit=1', { key })).body;
  await record('GET', `/v1/agents?limit=1&after=${encodeURIComponent(agentsPage.nextCursor)}`, { key });
  const agents = (await record('GET', '/v1/agents', { key })).body.data as { id: string; name: string }[];
  const aurora = agents.find((a) => a.name === 'Aurora')!.id;
  const sources = (await record('GET', '/v1/knowledge/sources?limit=5', { key })).body;
  await record('GET', `/v1/knowledge/sources?limit=5&after=${encodeURIComponent(sources.nextCursor)}`, { key });
  await record('GET', `/v1/knowledge/sources/${sources.data[0].id}`, { key });
  await record('GET', '/v1/knowledge/topics', { key });
  await record('POST', `/v1/agents/${aurora}/query`, { key, body: { query: 'When does the Ruzafa bar open on Saturday?' } });
  await record('POST', `/v1/agents/${aurora}/query`, { key, body: { query: 'cold brew ratio' } });
  await record('POST', `/v1/agents/${aurora}/chat`, { key, body: { message: '¿A qué hora abre la barra de Ruzafa?' } });
  await record('POST', `/v1/agents/${aurora}/chat`, { key, body: { message: 'Do you ship abroad?' }, headers: { accept: 'text/event-stream' } });
  const project = (await record('GET', '/v1/projects', { key })).body.data[0];
  await record('GET', `/v1/projects/${project.id}/pages`, { key });
  await record('GET', `/v1/projects/${project.id}/theme`, { key });
  const brand = (await record('GET', `/v1/projects/${project.id}/brand`, { key })).body;
  await record('GET', new URL(brand.logo.url).pathname + new URL(brand.logo.url).search);
  for (const page of ['/', '/menu', '/about', '/llms.txt', '/sitemap.xml']) await record('GET', `http://${project.slug}.localhost${page}`);
  // New ids continue where the load left the generators.
  const added = (
    await record('POST', '/v1/knowledge/text', {
      key,
      body: { title: 'Gift cards', text: 'Gift cards are sold at both bars and never expire.', agentId: aurora },
    })
  ).body;
  await record('POST', '/_emulator/queue/drain');
  await record('GET', `/v1/knowledge/sources/${added.id}`, { key });
  await record('POST', '/v1/agents', { key, body: { name: 'Third', identity: { businessName: 'Café Aurora' } }, headers: { 'idempotency-key': 'demo-1' } });
  // A day on, the URL source is crawled again by the job the load scheduled.
  await record('POST', '/_emulator/clock', { body: { advanceMs: 24 * 3600 * 1000 } });
  await record('GET', '/v1/knowledge/sources?limit=100', { key });
  await record('GET', '/_emulator/state');
  await record('POST', '/_emulator/reset');
  await record('GET', '/v1/knowledge/sources?limit=100', { key });
  await record('GET', '/_emulator/state');
  return out;
}
