// The state gate, proved by properties (issue 24): take an exported state, mutate any
// cell of any row (type, range, JSON text, length, references, bytes, whole rows and
// columns) and import it. Either the import is refused with 400 and the state is
// unchanged, or every route of the API, the control plane and the hosted sites answers
// without a 500, with an answer its OpenAPI description declares, as a well-formed HTTP
// message (checked on the wire too for stored files and replays, where keep-alive
// smuggling would show).
//
// Runs: STATE_FUZZ_RUNS per property (default 1,000; two properties). Reproduce a failure
// with the seed it prints: STATE_FUZZ_SEED=<seed> (and STATE_FUZZ_PATH=<path> to replay
// the shrunk case at once).
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Emulator, ListeningServer } from '../../emulator/emulator.js';
import { ConformanceChecker, type OpenApiDoc } from '../support/openapi-conformance.js';
import {
  cellsOf,
  malformed,
  mutate,
  mutationArb,
  populateEveryTable,
  REPLAYED,
  stepBody,
  walkOf,
  withPendingSource,
  type Doc,
  type Mutation,
  type Step,
} from '../support/state-fuzz.js';

// Tens of thousands of answers to mutated states: checked here, against the same
// description, rather than recorded for test/conformance (the recorder is left out).
vi.unmock('../../emulator/emulator.js');
const { createEmulator } = await import('../../emulator/emulator.js');
const client = await import('../../emulator/client.js');
// Answers are checked at run time, against the description: their bodies are read as `any`.
const send = (...args: Parameters<typeof client.send>) => client.send<any>(...args);

const RUNS = Number(process.env.STATE_FUZZ_RUNS ?? 1000);
const SEED = process.env.STATE_FUZZ_SEED === undefined ? Date.now() ^ (Math.random() * 2 ** 31) : Number(process.env.STATE_FUZZ_SEED);
const PATH = process.env.STATE_FUZZ_PATH;
const HEAVY_EVERY = 25;
const DEMO_KEY = 'svc_test_DemoFullAccessKey000000000000001_0k1rIW';
const quiet = () => {};

interface Subject {
  emulator: Emulator;
  server: ListeningServer;
  base: Doc;
  key: string;
  workspaceId: string;
  checker: ConformanceChecker;
}

async function read(res: Response): Promise<Uint8Array> {
  return new Uint8Array(await res.arrayBuffer());
}

/** Sends one step in process; answers why its answer is wrong, or undefined. */
async function judge(subject: Subject, step: Step): Promise<string | undefined> {
  const headers: Record<string, string> = { ...step.headers };
  if (step.key) headers.authorization = `Bearer ${subject.key}`;
  const body = stepBody(step);
  let init: RequestInit = { method: step.method, headers };
  if (body instanceof FormData) init = { ...init, body };
  else if (body !== undefined) init = { ...init, body: JSON.stringify(body), headers: { ...headers, 'content-type': 'application/json' } };
  let path = step.path;
  if (step.signedAsset) {
    const got = await send(subject.emulator, 'GET', `/v1/assets/${step.signedAsset}`, { key: subject.key });
    if (got.status === 200) path = new URL(got.body.url).pathname + new URL(got.body.url).search;
  }
  const res = await subject.emulator.fetch(new URL(path, 'http://localhost').href, init);
  const bytes = await read(res);
  const where = `${step.method} ${path}`;
  const wrong = malformed(res.status, res.headers, bytes);
  if (wrong) return `${where}: ${wrong}`;
  const text = new TextDecoder().decode(bytes);
  if (res.status === 500) return `${where}: 500 ${text}`;
  // A stored value the read path cannot take after the gate took it: the two disagree.
  if (res.status === 503 && text.includes('"svc.service.unavailable"') && text.includes('cannot be read')) return `${where}: the gate let through ${text}`;
  if (step.operation === 'site') return undefined;
  const url = new URL(path, 'http://localhost');
  const verdict = subject.checker.check({
    file: 'state-fuzz',
    test: 'state-fuzz',
    method: step.method,
    path: url.pathname,
    status: res.status,
    contentType: res.headers.get('content-type'),
    headers: [...res.headers.keys()],
    ...(/json/i.test(res.headers.get('content-type') ?? '') && { body: text }),
  });
  if (verdict.kind === 'mismatch') return `${where}: ${verdict.operation}: ${verdict.reason}`;
  if (verdict.kind === 'checked' && verdict.operation !== step.operation) return `${where}: reached ${verdict.operation}, meant ${step.operation}`;
  return undefined;
}

/** Bytes on one keep-alive connection, read until the server closes it. */
function exchange(port: number, request: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks)));
    socket.on('error', reject);
  });
}

/** Splits pipelined HTTP/1.1 answers by their framing; throws on bytes that are no answer. */
function answersOn(raw: Buffer): { status: number; head: string; body: Buffer }[] {
  const out: { status: number; head: string; body: Buffer }[] = [];
  let at = 0;
  while (at < raw.length) {
    const end = raw.indexOf('\r\n\r\n', at);
    const head = raw.subarray(at, end < 0 ? raw.length : end).toString('latin1');
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1];
    if (end < 0 || !status) throw new Error(`bytes that are no answer: ${JSON.stringify(raw.subarray(at, at + 200).toString('latin1'))}`);
    let p = end + 4;
    let body: Buffer;
    if (/\r\ntransfer-encoding: chunked/i.test(head)) {
      const parts: Buffer[] = [];
      for (;;) {
        const line = raw.indexOf('\r\n', p);
        const size = Number.parseInt(raw.subarray(p, line).toString('latin1'), 16);
        if (!Number.isInteger(size)) throw new Error('a chunk without a size');
        p = line + 2;
        if (size === 0) {
          p += 2;
          break;
        }
        parts.push(raw.subarray(p, p + size));
        p += size + 2;
      }
      body = Buffer.concat(parts);
    } else {
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
      body = raw.subarray(p, p + length);
      p += length;
    }
    out.push({ status: Number(status), head, body });
    at = p;
  }
  return out;
}

/** On the wire: a stored file and a stored replay, pipelined, then a health check that must come back as itself. */
async function judgeWire(subject: Subject, doc: Doc): Promise<string | undefined> {
  const asset = doc.tables.assets?.find((a) => a.workspace_id === subject.workspaceId)?.id;
  let filePath = '/files/none_0';
  if (typeof asset === 'string') {
    const got = await send(subject.emulator, 'GET', `/v1/assets/${asset}`, { key: subject.key });
    if (got.status === 200) filePath = new URL(got.body.url).pathname + new URL(got.body.url).search;
  }
  const replay = JSON.stringify(REPLAYED.body);
  const raw = await exchange(
    subject.server.port,
    `GET ${filePath} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n` +
      `POST /v1/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${subject.key}\r\nIdempotency-Key: ${REPLAYED.idemKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(replay)}\r\n\r\n${replay}` +
      'GET /_emulator/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
  );
  let answers: ReturnType<typeof answersOn>;
  try {
    answers = answersOn(raw);
  } catch (error) {
    return `on the wire: ${(error as Error).message}`;
  }
  if (answers.length !== 3) return `on the wire: ${answers.length} answers to 3 requests: ${answers.map((a) => a.status).join(', ')}`;
  if (answers.some((a) => a.status === 500)) return `on the wire: a 500 (${answers.map((a) => a.status).join(', ')})`;
  if (answers.some((a) => /\r\nset-cookie:/i.test(a.head))) return 'on the wire: a set-cookie header';
  if (answers[2]!.status !== 200 || !answers[2]!.body.toString().includes('"status":"ok"'))
    return `on the wire: the third answer is not the health check: ${answers[2]!.head}`;
  return undefined;
}

async function setUp(kind: 'demo' | 'every table'): Promise<Subject> {
  const emulator = await createEmulator({ seed: 24, fixtures: kind === 'demo' ? 'demo' : 'none', log: quiet });
  let key = DEMO_KEY;
  if (kind === 'demo') {
    const form = new FormData();
    form.set(
      'file',
      new File([Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')], 'dot.png', {
        type: 'image/png',
      }),
    );
    expect((await send(emulator, 'POST', '/v1/assets', { key, body: form })).status).toBe(201);
    expect((await send(emulator, 'POST', '/v1/agents', { key, body: REPLAYED.body, headers: { 'idempotency-key': REPLAYED.idemKey } })).status).toBe(201);
  } else {
    key = (await populateEveryTable(emulator)).key;
    // A pending source with its input: the service's own rows, which the gate must take.
    await emulator.importState(withPendingSource((await emulator.exportState({ plainHashes: true })) as Doc), { plainHashes: true });
  }
  const base = (await send(emulator, 'GET', '/_emulator/state')).body as Doc;
  const me = await send(emulator, 'GET', '/v1/me', { key });
  const openapi = (await send(emulator, 'GET', '/v1/openapi.json')).body as OpenApiDoc;
  return { emulator, server: await emulator.listen(), base, key, workspaceId: me.body.workspaceId, checker: new ConformanceChecker(openapi) };
}

for (const kind of ['demo', 'every table'] as const) {
  describe(`a mutated ${kind} state: refused unchanged, or answered well on every route`, () => {
    let subject: Subject;
    beforeAll(async () => {
      subject = await setUp(kind);
    }, 120_000);
    afterAll(async () => {
      await subject?.server.close();
      await subject?.emulator.close();
    });

    it('the base state has a row in every table it carries, and the walk reaches every operation', () => {
      if (kind === 'every table') {
        const empty = Object.entries(subject.base.tables)
          .filter(([, rows]) => rows.length === 0)
          .map(([t]) => t);
        expect(empty).toEqual([]);
      }
      const walked = new Set(walkOf(subject.base, subject.workspaceId).map((s) => s.operation));
      const operations = Object.entries((subject.checker as unknown as { doc: OpenApiDoc }).doc.paths).flatMap(([path, item]) =>
        Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
      );
      // Walked once per property: the state document and the description (neither depends on a case).
      const once = ['GET /_emulator/state', 'PUT /_emulator/state', 'GET /v1/openapi.json'];
      expect(operations.filter((op) => !walked.has(op) && !once.includes(op))).toEqual([]);
    });

    it(`${RUNS} mutations`, async () => {
      console.info(`state fuzz (${kind}): seed ${SEED}${PATH ? `, path ${PATH}` : ''}, ${RUNS} runs (STATE_FUZZ_SEED=${SEED} reproduces)`);
      const { emulator, base } = subject;
      const cells = cellsOf(base).length;
      let refused = 0;
      let accepted = 0;
      const property = fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(cells * 4), mutationArb), { minLength: 1, maxLength: 2 }),
        async (mutations: [number, Mutation][]) => {
          const doc = mutations.reduce((d, [at, m]) => mutate(d, at, m), base);
          const before = JSON.stringify(await emulator.exportState());
          const res = await send(emulator, 'PUT', '/_emulator/state', { body: doc });
          if (res.status === 400) {
            refused++;
            expect(res.body.code).toBe('svc.request.validation_failed');
            expect(res.body.errors.length).toBeGreaterThan(0);
            expect(JSON.stringify(await emulator.exportState()), 'a refused import changed the state').toBe(before);
            return;
          }
          try {
            expect(res.status, res.text).toBe(200);
            // What the state makes due runs first, so that the walk does not race it.
            await emulator.drain();
            const problems: string[] = [];
            const wire = await judgeWire(subject, doc);
            if (wire) problems.push(wire);
            // Routes whose work an import ends (worker threads, background jobs) cost seconds
            // each on a busy machine: walked in the first accepted case and one in 25 after.
            accepted++;
            const full = accepted % HEAVY_EVERY === 1;
            for (const step of walkOf(doc, subject.workspaceId).filter((s) => full || !s.heavy)) {
              const wrong = await judge(subject, step);
              if (wrong) problems.push(wrong);
            }
            const state = await send(emulator, 'GET', '/_emulator/state');
            if (state.status !== 200) problems.push(`GET /_emulator/state: ${state.status}`);
            expect(
              problems,
              `after ${mutations.map(([at, m]) => `${JSON.stringify(m)} at ${JSON.stringify(cellsOf(base)[at % cellsOf(base).length])}`).join(', then ')}`,
            ).toEqual([]);
          } finally {
            await emulator.importState(base);
          }
        },
      );
      await fc.assert(property, { numRuns: RUNS, seed: SEED, ...(PATH && { path: PATH }), endOnFailure: false });
      console.info(`state fuzz (${kind}): ${refused} refused, ${accepted} accepted and walked (${Math.ceil(accepted / HEAVY_EVERY)} with the heavy routes)`);
    }, 3_600_000);
  });
}
