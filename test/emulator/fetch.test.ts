import { describe, expect, it } from 'vitest';
import { fileEmulator } from '../support/emulator.js';

const emulator = await fileEmulator({ seed: 17 });
const { apiKey } = await emulator.createWorkspace();
const auth = { authorization: `Bearer ${apiKey.secret}` };

describe('members answering a promise', () => {
  it('reject bad input, as global fetch does, and never throw where they are called', async () => {
    const calls: [string, () => Promise<unknown>][] = [
      ['setWeb', () => emulator.setWeb({ page: [] } as never)],
      ['updateWorkspace', () => emulator.updateWorkspace('ws_missing', { credits: -1 })],
      ['createWorkspace', () => emulator.createWorkspace({ scopes: [] })],
      ['importState', () => emulator.importState({})],
      ['fetch', () => emulator.fetch('http://[not-a-host/v1/me')],
      ['request', () => emulator.request('http://[not-a-host/v1/me')],
      ['clock.advance', () => emulator.clock.advance(-1)],
      ['clock.advance', () => emulator.clock.advance(1.5)],
      ['clock.set', () => emulator.clock.set(emulator.clock.now() + 0.5)],
      ['requests', () => emulator.requests(0)],
      ['listen', () => emulator.listen({ port: 'x' as never })],
      ['listen', () => emulator.listen({ port: -1 })],
      ['listen', () => emulator.listen({ port: 70_000 })],
      ['listen', () => emulator.listen({ port: 0, hots: '0.0.0.0' } as never)],
    ];
    for (const [name, call] of calls) {
      let answer: Promise<unknown> | undefined;
      expect(() => {
        answer = call();
      }, name).not.toThrow();
      await expect(answer, name).rejects.toBeInstanceOf(Error);
    }
    await expect(emulator.setWeb({ page: [] } as never)).rejects.toMatchObject({ status: 400, code: 'svc.request.validation_failed' });
    // listen's options are checked as the others are (D-1172): no socket file named after a bad port.
    await expect(emulator.listen({ port: 'x' as never })).rejects.toMatchObject({ status: 400, errors: [{ field: 'port', reason: 'must be a number' }] });
    await expect(emulator.listen({ port: 3.5 })).rejects.toMatchObject({ status: 400, errors: [{ field: 'port', reason: 'must be an integer' }] });
  });

  it('state options, workspace ids and clock moves are checked as the control plane checks them (D-1176)', async () => {
    const validation = { status: 400, code: 'svc.request.validation_failed' };
    const doc = (await emulator.exportState()) as unknown as { tables: Record<string, Record<string, unknown>[]> };
    const ws = doc.tables.workspaces![0]!;
    const credits = (await emulator.getWorkspace(ws.id as string)).credits;
    // `trusted` is the prebuilt demo's pass past the gate: a caller's document is gated all the same.
    const forged = structuredClone(doc);
    forged.tables.workspaces![0]!.credits = 'lots';
    await expect(emulator.importState(forged, { trusted: true } as never)).rejects.toMatchObject({ ...validation, errors: [{ field: 'trusted' }] });
    await expect(emulator.importState(forged)).rejects.toMatchObject(validation);
    expect((await emulator.getWorkspace(ws.id as string)).credits).toBe(credits);
    // Only a boolean unseals the key hashes: 'no' is not a yes.
    await expect(emulator.exportState({ plainHashes: 'no' } as never)).rejects.toMatchObject({ ...validation, errors: [{ field: 'plainHashes' }] });
    await expect(emulator.exportState('x' as never)).rejects.toMatchObject(validation);
    // A workspace id that is not a string is the caller's slip (400), not a workspace nobody has (404).
    for (const call of [
      () => emulator.getWorkspace(123 as never),
      () => emulator.getLexicon(undefined as never),
      () => emulator.updateWorkspace({} as never, { credits: 1 }),
      () => emulator.deleteWorkspace(null as never),
    ]) {
      await expect(call()).rejects.toMatchObject({ ...validation, errors: [{ field: 'workspaceId' }] });
    }
    await expect(emulator.getWorkspace(123 as never)).rejects.toMatchObject({ errors: [{ field: 'workspaceId', reason: 'must be a string' }] });
    await expect(emulator.getWorkspace('ws_missing')).rejects.toMatchObject({ status: 404, code: 'svc.tenant.not_found' });
    // Clock moves read their argument as POST /_emulator/clock does; a bad one is not "a move back".
    const now = emulator.clock.now();
    await expect(emulator.clock.set('garbage')).rejects.toMatchObject({
      ...validation,
      errors: [{ field: 'now', reason: 'must be an RFC 3339 date-time or epoch milliseconds' }],
    });
    await expect(emulator.clock.set('Dec 25 2999')).rejects.toMatchObject({
      errors: [{ field: 'now', reason: 'must be an RFC 3339 date-time or epoch milliseconds' }],
    });
    await expect(emulator.clock.set(Number.NaN)).rejects.toMatchObject({
      errors: [{ field: 'now', reason: 'must be an RFC 3339 date-time or epoch milliseconds' }],
    });
    await expect(emulator.clock.advance('60000' as never)).rejects.toMatchObject({
      errors: [{ field: 'advanceMs', reason: 'must be a number of milliseconds' }],
    });
    await expect(emulator.clock.advance(Number.NaN)).rejects.toMatchObject({ errors: [{ field: 'advanceMs' }] });
    await expect(emulator.clock.advance(-1)).rejects.toMatchObject({ errors: [{ field: 'advanceMs', reason: 'time only moves forward' }] });
    expect(emulator.clock.now()).toBe(now);
    await emulator.clock.set(new Date(now + 1_000).toISOString());
    expect(emulator.clock.now()).toBe(now + 1_000);
  });

  it('requests(limit) takes what GET /_emulator/requests?limit= takes, and refuses the rest with the same 400 (D-1095)', async () => {
    for (let i = 0; i < 3; i++) await emulator.request('/v1/me', { headers: auth });
    for (const limit of [-1, 0, Number.NaN, 2.5, 1001, 5000, Number.POSITIVE_INFINITY]) {
      const refused = { status: 400, code: 'svc.request.validation_failed', errors: [{ field: 'limit', reason: 'must be an integer from 1 to 1000' }] };
      await expect(emulator.requests(limit), String(limit)).rejects.toMatchObject(refused);
      const res = await emulator.request(`/_emulator/requests?limit=${limit}`);
      expect(res.status, String(limit)).toBe(400);
      expect(await res.json(), String(limit)).toMatchObject({ code: refused.code, errors: refused.errors });
    }
    await expect(emulator.requests('2' as never)).rejects.toMatchObject({ status: 400, errors: [{ field: 'limit' }] });
    expect(await emulator.requests(2)).toHaveLength(2);
    const served = (await (await emulator.request('/_emulator/requests?limit=1000')).json()) as { data: unknown[] };
    expect(await emulator.requests(1000)).toEqual(served.data);
    expect(await emulator.requests()).toEqual(await emulator.requests(100));
  });

  it("the package's entry exports the errors a caller checks with instanceof", async () => {
    const entry = await import('../../emulator/main.js');
    const emulatorEntry = await import('../../emulator/index.js');
    expect(entry.EmulatorClosedError).toBe(emulatorEntry.EmulatorClosedError);
    expect(entry.FixtureError).toBe(emulatorEntry.FixtureError);
    expect(entry.EmulatorOptionsError).toBe(emulatorEntry.EmulatorOptionsError);
  });
});

describe('emulator.fetch takes what global fetch takes', () => {
  it('a string (absolute, or relative to http://localhost), a URL, a Request, each with init', async () => {
    const answers = await Promise.all([
      emulator.fetch('http://localhost/v1/me', { headers: auth }),
      emulator.fetch('/v1/me', { headers: auth }),
      emulator.fetch(new URL('http://127.0.0.1/v1/me'), { headers: auth }),
      emulator.fetch(new Request('http://localhost/v1/me', { headers: auth })),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(((await res.json()) as { workspaceId: string }).workspaceId).toBeTypeOf('string');
    }
  });

  it('init overrides a Request, as with fetch: method, headers and body', async () => {
    const base = new Request('http://localhost/v1/agents', { headers: auth });
    const res = await emulator.fetch(base, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ada', identity: { businessName: 'Acme' } }),
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { name: string }).name).toBe('Ada');
    // Init headers replace the Request's: without a key the same call is refused.
    expect((await emulator.fetch(base, { method: 'POST', headers: {} })).status).toBe(401);
  });

  it('honours an AbortSignal as global fetch does: aborted before, nothing is sent; aborted while waiting, it rejects with the reason (D-1171)', async () => {
    const body = JSON.stringify({ name: 'Never', identity: { businessName: 'B' } });
    const headers = { ...auth, 'content-type': 'application/json' };
    const refused = emulator.fetch('/v1/agents', { method: 'POST', headers, body, signal: AbortSignal.abort() });
    await expect(refused).rejects.toMatchObject({ name: 'AbortError' });
    const why = new Error('gave up');
    await expect(emulator.fetch('/v1/agents', { method: 'POST', headers, body, signal: AbortSignal.abort(why) })).rejects.toBe(why);
    const listed = (await (await emulator.fetch('/v1/agents?limit=100', { headers: auth })).json()) as { data: { name: string }[] };
    expect(listed.data.map((a) => a.name)).not.toContain('Never');
    // Aborted while the answer is under way (a drain waits for the queue).
    const controller = new AbortController();
    const waiting = emulator.fetch('/_emulator/queue/drain', { method: 'POST', signal: controller.signal });
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
  });

  // test/examples/openapi-fetch.test.ts hands it to openapi-fetch.
  it('fits wherever `typeof fetch` is expected', async () => {
    const asFetch: typeof fetch = emulator.fetch;
    const res = await asFetch('/v1/me', { headers: auth });
    expect(res.status).toBe(200);
  });
});

describe('a closed emulator answers no more requests (D-1077)', () => {
  it('refuses them as a stopped server does, from the moment close() is called, with the reason and nothing logged', async () => {
    const closing = await fileEmulator({ seed: 18 });
    const { apiKey: key } = await closing.createWorkspace();
    const headers = { authorization: `Bearer ${key.secret}` };
    expect((await closing.fetch('/v1/me', { headers })).status).toBe(200);
    const logged: unknown[] = [];
    closing.service.settings.log = (...args: unknown[]) => void logged.push(args);
    const closed = closing.close();
    // Closing again while it closes is no error (it ran the shutdown twice before).
    const again = closing.close();
    // Refused from the moment close() is called, not only once the store is shut.
    // Its rejection is read at once: the close may take a while (PostgreSQL), and a
    // rejection left unread that long is reported as unhandled.
    const failure = (p: Promise<Response>) =>
      p.then(
        () => undefined,
        (e: unknown) => e,
      );
    const during = failure(closing.fetch('/v1/me', { headers }));
    await Promise.all([closed, again]);
    const after = failure(closing.fetch('/v1/agents', { method: 'POST', headers, body: '{"name":"x"}' }));
    for (const error of await Promise.all([during, after])) {
      expect(error).toBeInstanceOf(TypeError);
      expect((error as TypeError).message).toBe('fetch failed');
      const cause = (error as TypeError).cause as { name: string; code: string; message: string };
      expect(cause).toMatchObject({ name: 'EmulatorClosedError', code: 'ECONNREFUSED' });
      expect(cause.message).toContain('emulator.close()');
    }
    // No 500 with a stack in the log for a request the emulator was never going to answer.
    expect(logged).toEqual([]);
  });

  it('every other member that answers a promise rejects with EmulatorClosedError, and listen() starts no server (D-1153)', async () => {
    const closing = await fileEmulator({ seed: 19 });
    const { workspaceId } = await closing.createWorkspace();
    const before = closing.clock.now();
    await closing.close();
    const members: [string, () => Promise<unknown>][] = [
      ['listen', () => closing.listen({ port: 0 })],
      ['createWorkspace', () => closing.createWorkspace()],
      ['getWorkspace', () => closing.getWorkspace(workspaceId)],
      ['updateWorkspace', () => closing.updateWorkspace(workspaceId, { credits: 1 })],
      ['getLexicon', () => closing.getLexicon(workspaceId)],
      ['deleteWorkspace', () => closing.deleteWorkspace(workspaceId)],
      ['requests', () => closing.requests()],
      ['injectFault', () => closing.injectFault({ match: { path: '/v1/me' }, status: 503 })],
      ['listFaults', () => closing.listFaults()],
      ['clearFaults', () => closing.clearFaults()],
      ['removeFault', () => closing.removeFault('flt_x')],
      ['setWeb', () => closing.setWeb({ pages: [] })],
      ['getWeb', () => closing.getWeb()],
      ['drain', () => closing.drain()],
      ['exportState', () => closing.exportState()],
      ['importState', () => closing.importState({})],
      ['reset', () => closing.reset()],
      ['clock.advance', () => closing.clock.advance(1)],
      ['clock.set', () => closing.clock.set(before + 1)],
    ];
    for (const [name, call] of members) {
      await expect(call(), name).rejects.toMatchObject({ name: 'EmulatorClosedError', code: 'ECONNREFUSED' });
    }
    // The clock did not move.
    expect(closing.clock.now()).toBe(before);
  });
});
