import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { openAiEmbedder, EmbeddingError } from '../../src/index.js';
import { CLI, exited, startCli } from '../support/cli.js';
import { client } from '../support/client.js';
import { quiet } from '../support/emulator.js';
import { addText, settled } from './support.js';

/**
 * A local stand-in for an OpenAI-compatible model server: `POST /v1/embeddings` answers
 * deterministic 4-dimensional vectors from a tiny "meaning" table, so that "rename the
 * machine" lands near "hostname" as a real model's vectors would.
 */
const CONCEPTS = [/hostname|rename|machine|equipo/g, /clean|wipe|screen/g, /computer|ordenador/g];
function vectorOf(text: string): number[] {
  const lower = text.toLowerCase();
  return [...CONCEPTS.map((c) => lower.match(c)?.length ?? 0), 0.1];
}

interface Behaviour {
  status?: number;
  delayMs?: number;
  /** Vectors of this length instead. */
  dimensions?: number;
  /** One vector fewer than asked. */
  short?: boolean;
  /** Close the connection without an answer, this many requests in a row. */
  drop?: number;
}
const requests: { headers: IncomingMessage['headers']; body: any }[] = [];
let behaviour: Behaviour = {};

const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  const body = JSON.parse(raw);
  requests.push({ headers: req.headers, body });
  if (behaviour.drop) {
    behaviour.drop -= 1;
    req.socket.destroy();
    return;
  }
  if (behaviour.delayMs) await new Promise((r) => setTimeout(r, behaviour.delayMs));
  if (req.url !== '/v1/embeddings' || behaviour.status) {
    res.writeHead(behaviour.status ?? 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'secret provider detail' } }));
    return;
  }
  const input: string[] = body.input;
  const data = input.map((text, index) => ({
    object: 'embedding',
    index,
    embedding: behaviour.dimensions ? new Array(behaviour.dimensions).fill(0.5) : vectorOf(text),
  }));
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ object: 'list', model: body.model, data: behaviour.short ? data.slice(1) : data }));
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
afterAll(() => new Promise<void>((r) => server.close(() => r())));

beforeEach(() => {
  behaviour = {};
  requests.length = 0;
});

const HOSTNAME = { title: 'Hostname', text: 'The hostname is kept in /etc/hostname; edit it and reboot.' };
const CLEANING = { title: 'Computer care', text: 'Computer care: wipe the computer screen with a dry cloth every week.' };

async function emulatorWith(options: Parameters<typeof openAiEmbedder>[0] | undefined) {
  const emu = await createEmulator({ log: quiet, ...(options && { embedder: openAiEmbedder(options) }) });
  const ws = await emu.createWorkspace();
  const api = client(emu, ws.apiKey.secret);
  const agentId = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id as string;
  return { emu, api, agentId };
}

describe('openAiEmbedder against a local OpenAI-compatible /embeddings server', () => {
  it('embeds knowledge and questions, and fuses its ranking with the words: a paraphrase finds its section', async () => {
    const { emu, api, agentId } = await emulatorWith({ baseUrl, model: 'embed-1', apiKey: 'sk-test' });
    try {
      const hostname = await addText(api, HOSTNAME);
      const cleaning = await addText(api, CLEANING);
      expect(await settled(emu, api, hostname)).toMatchObject({ status: 'ready' });
      expect(await settled(emu, api, cleaning)).toMatchObject({ status: 'ready' });
      expect(requests[0]!.headers.authorization).toBe('Bearer sk-test');
      // The two documents are extracted at once: either may be embedded first.
      expect(requests.map((r) => r.body)).toContainEqual({ model: 'embed-1', input: [expect.stringContaining('hostname')], encoding_format: 'float' });

      const res = await api.post(`/v1/agents/${agentId}/query`, { query: 'How do I rename the computer?', limit: 2 });
      expect(res.status).toBe(200);
      // Words alone know only "computer" (the care page); the vectors know "rename" is the hostname.
      expect(res.body.passages.map((p: { sourceId: string }) => p.sourceId).sort()).toEqual([hostname, cleaning].sort());
      expect(res.body.strategies.vector).toBe(2);
      for (const p of res.body.passages) expect(p.score).toBeGreaterThan(0);
      expect(requests.at(-1)!.body.input).toEqual(['How do I rename the computer?']);
    } finally {
      await emu.close();
    }
  });

  it('without it, the same question finds only the page that shares its words', async () => {
    const { emu, api, agentId } = await emulatorWith(undefined);
    try {
      const [, cleaning] = [await addText(api, HOSTNAME), await addText(api, CLEANING)];
      await emu.drain();
      const res = await api.post(`/v1/agents/${agentId}/query`, { query: 'How do I rename the computer?', limit: 2 });
      expect(res.body.passages.map((p: { sourceId: string }) => p.sourceId)).toEqual([cleaning]);
    } finally {
      await emu.close();
    }
  });

  it('fails the source with ingest_failed when the endpoint errs, times out or answers the wrong shape, with no provider text', async () => {
    const { emu, api } = await emulatorWith({ baseUrl, model: 'embed-1', timeoutMs: 200 });
    try {
      for (const bad of [{ status: 500 }, { delayMs: 600 }, { short: true }] satisfies Behaviour[]) {
        behaviour = bad;
        const id = await addText(api, HOSTNAME);
        const source = await settled(emu, api, id);
        expect(source, JSON.stringify(bad)).toMatchObject({ status: 'failed', error: 'ingest_failed' });
        expect(JSON.stringify(source)).not.toContain('secret provider detail');
        expect(JSON.stringify(source)).not.toContain('127.0.0.1');
      }
    } finally {
      await emu.close();
    }
  });

  it('sends a batch again when the connection closes before an answer, twice at most; an error status is final', async () => {
    const embedder = openAiEmbedder({ baseUrl, model: 'embed-1' });
    behaviour = { drop: 2 };
    const [vector] = await embedder.embed(['hostname']);
    expect(vector![0]).toBeGreaterThan(0.9);
    expect(requests).toHaveLength(3);

    requests.length = 0;
    behaviour = { drop: 3 };
    await expect(embedder.embed(['hostname'])).rejects.toThrow(/embeddings failed/);
    expect(requests).toHaveLength(3);

    requests.length = 0;
    behaviour = { status: 503 };
    await expect(embedder.embed(['hostname'])).rejects.toThrow(/answered 503/);
    expect(requests).toHaveLength(1);
  });

  it('a source is ready when one connection to the endpoint closed before an answer', async () => {
    const { emu, api } = await emulatorWith({ baseUrl, model: 'embed-1' });
    try {
      behaviour = { drop: 1 };
      const id = await addText(api, HOSTNAME);
      expect(await settled(emu, api, id)).toMatchObject({ status: 'ready' });
    } finally {
      await emu.close();
    }
  });

  it('a query still answers, by its words, when the endpoint fails at query time', async () => {
    const { emu, api, agentId } = await emulatorWith({ baseUrl, model: 'embed-1' });
    try {
      const id = await addText(api, HOSTNAME);
      await emu.drain();
      behaviour = { status: 503 };
      const res = await api.post(`/v1/agents/${agentId}/query`, { query: 'Where is the hostname kept?', limit: 2 });
      expect(res.status).toBe(200);
      expect(res.body.passages.map((p: { sourceId: string }) => p.sourceId)).toEqual([id]);
      expect(res.text).not.toContain('secret provider detail');
    } finally {
      await emu.close();
    }
  });

  it('sends texts in batches, keeps their order, learns or checks the length, and normalises', async () => {
    const embedder = openAiEmbedder({ baseUrl, model: 'embed-1', batchSize: 2 });
    const vectors = await embedder.embed(['hostname', 'wipe the screen', 'computer', 'rename the machine']);
    expect(requests.map((r) => r.body.input)).toEqual([
      ['hostname', 'wipe the screen'],
      ['computer', 'rename the machine'],
    ]);
    expect(embedder.dimensions).toBe(4);
    expect(vectors.map((v) => Math.round(Math.hypot(...v) * 1000) / 1000)).toEqual([1, 1, 1, 1]);
    expect(vectors[0]![0]).toBeGreaterThan(0.9);
    const fixed = openAiEmbedder({ baseUrl, model: 'embed-1', dimensions: 4 });
    behaviour = { dimensions: 3 };
    await expect(fixed.embed(['x'])).rejects.toBeInstanceOf(EmbeddingError);
    expect(requests.at(-1)!.body.dimensions).toBe(4);
  });
});

describe('the CLI with --embeddings-url', () => {
  const running = new Set<ChildProcess>();
  afterEach(() => {
    for (const child of running) child.kill('SIGKILL');
    running.clear();
  });

  it('embeds through the endpoint it names, and refuses a URL without a model', async () => {
    const { child, url } = await startCli(['--fixtures', 'none', '--embeddings-url', baseUrl, '--embeddings-model', 'embed-cli'], { track: running });
    const ws = (await (await fetch(`${url}/_emulator/workspaces`, { method: 'POST' })).json()) as { apiKey: { secret: string } };
    const headers = { authorization: `Bearer ${ws.apiKey.secret}`, 'content-type': 'application/json' };
    const added = await fetch(`${url}/v1/knowledge/text`, { method: 'POST', headers, body: JSON.stringify(HOSTNAME) });
    expect(added.status).toBe(202);
    await fetch(`${url}/_emulator/queue/drain`, { method: 'POST' });
    expect(requests.some((r) => r.body.model === 'embed-cli')).toBe(true);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);

    const refused = spawn(process.execPath, [CLI, '--embeddings-url', baseUrl], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    refused.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    expect(await exited(refused)).toBe(1);
    expect(stderr).toContain('--embeddings-url needs --embeddings-model');
  });
});
