import { describe, expect, inject, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { INGEST_FAILURE_CODES, LIMIT_FAILURES } from '../../src/platform/ingest-failures.js';
import { client, send } from '../support/client.js';
import { fileEmulator, quiet, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';
import { freshDatabase } from '../support/postgres.js';

const emulator = await fileEmulator({ seed: 21 });
const control = client(emulator);
const agent = { name: 'A', identity: { businessName: 'B' } };

describe('fault injection', () => {
  it('answers matching requests with the injected problem and changes nothing', async () => {
    const { api } = await workspace(emulator);
    const fault = await control.post('/_emulator/faults', { match: { method: 'POST', path: '/v1/agents' }, status: 503 });
    expect(fault.status).toBe(201);
    expect(fault.body).toMatchObject({ status: 503, code: 'svc.service.unavailable', remaining: null, match: { method: 'POST', path: '/v1/agents' } });
    const refused = await api.post('/v1/agents', agent);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.body).toMatchObject({ code: 'svc.service.unavailable', instance: '/v1/agents', requestId: refused.headers.get('x-request-id') });
    expect((await api.get('/v1/agents')).body.data).toEqual([]);
    const journal = (await control.get('/_emulator/requests?limit=2')).body.data;
    expect(journal[1]).toMatchObject({ method: 'POST', path: '/v1/agents', status: 503, code: 'svc.service.unavailable' });
    expect((await control.delete('/_emulator/faults')).body).toEqual({ cleared: 1 });
    expect((await api.post('/v1/agents', agent)).status).toBe(201);
  });

  it('fires `times` times, then stops', async () => {
    const { api } = await workspace(emulator);
    await control.post('/_emulator/faults', { match: { path: '/v1/me' }, code: 'svc.internal.error', times: 2 });
    expect((await api.get('/v1/me')).status).toBe(500);
    expect((await api.get('/v1/me')).status).toBe(500);
    expect((await api.get('/v1/me')).status).toBe(200);
    expect((await control.get('/_emulator/faults')).body.data).toEqual([]);
  });

  it("a rate-limit fault says when to retry, as the service's 429 does; the daily cap's says nothing (D-1089)", async () => {
    const { api } = await workspace(emulator);
    await control.post('/_emulator/faults', { match: { path: '/v1/me' }, status: 429, times: 1 });
    const limited = await api.get('/v1/me');
    expect([limited.status, limited.body.code, limited.headers.get('retry-after')]).toEqual([429, 'svc.rate_limit.exceeded', '1']);
    await control.post('/_emulator/faults', { match: { path: '/v1/me' }, code: 'svc.usage.budget_exceeded', times: 1 });
    const capped = await api.get('/v1/me');
    expect([capped.status, capped.body.code, capped.headers.get('retry-after')]).toEqual([429, 'svc.usage.budget_exceeded', null]);
  });

  it('matches paths with * (one segment) and ** (any), and any method when none is given', async () => {
    const { api } = await workspace(emulator);
    const created = (await api.post('/v1/agents', agent)).body;
    await control.post('/_emulator/faults', { match: { path: '/v1/agents/*' }, code: 'svc.rate_limit.exceeded' });
    expect((await api.get(`/v1/agents/${created.id}`)).body.code).toBe('svc.rate_limit.exceeded');
    expect((await api.patch(`/v1/agents/${created.id}`, { name: 'X' })).status).toBe(429);
    expect((await api.get(`/v1/agents/${created.id}/theme`)).status).toBe(410);
    expect((await api.get('/v1/agents')).status).toBe(200);
    await control.delete('/_emulator/faults');
    await control.post('/_emulator/faults', { match: { path: '/v1/**' }, status: 502 });
    expect((await api.get(`/v1/agents/${created.id}/theme`)).status).toBe(502);
    expect((await api.get(`/v1/agents/${created.id}/theme`)).body.code).toBe('svc.billing.provider_unavailable');
    expect((await control.get('/_emulator/health')).status).toBe(200);
    await control.delete('/_emulator/faults');
    expect((await api.get(`/v1/agents/${created.id}`)).body.name).toBe('A');
  });

  it('matches many wildcards against a long path in the time the path takes', async () => {
    const { api } = await workspace(emulator);
    // As a regular expression, six `**` backtrack polynomially on a long path that does
    // not match: this answer would take hours.
    await control.post('/_emulator/faults', { match: { path: '/v1/**a**a**a**a**a**a/*/x' }, status: 503 });
    const long = `/v1/${'a'.repeat(20_000)}`;
    expect((await api.get(long)).status).toBe(404);
    expect((await api.get(`${long}/seg/x`)).status).toBe(503);
    expect((await api.get(`${long}/seg/more/y`)).status).toBe(404);
    await control.delete('/_emulator/faults');
    await control.post('/_emulator/faults', { match: { path: '/v1/a*c/**' }, status: 503 });
    expect((await api.get('/v1/abbbc/d/e')).status).toBe(503);
    expect((await api.get('/v1/ab/c/d')).status).toBe(404);
    expect((await api.get('/v1/ac/')).status).toBe(503);
    await control.delete('/_emulator/faults');
  });

  it('refuses malformed faults and stores none', async () => {
    for (const body of [
      {},
      { status: 200 },
      { code: 'svc.nope' },
      { ingest: 'exploded' },
      { ingest: 'fetch_timeout', status: 500 },
      { status: 500, match: { method: 'TRACE' } },
      { status: 500, times: 0 },
      // One time more than a fault may answer: refused at once, nothing queued (D-1087).
      { status: 500, times: 10_001 },
      { ingest: 'fetch_timeout', times: 1e9 },
    ]) {
      const res = await control.post('/_emulator/faults', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('svc.request.validation_failed');
    }
    expect((await control.get('/_emulator/faults')).body.data).toEqual([]);
  });

  it('an ingest fault queues any base or blocked-address failure code of the registry, never a limit one', async () => {
    const limits: readonly string[] = Object.values(LIMIT_FAILURES);
    for (const code of INGEST_FAILURE_CODES) {
      const res = await control.post('/_emulator/faults', { ingest: code, times: 1 });
      expect(res.status, code).toBe(limits.includes(code) ? 400 : 201);
      if (res.status === 201) expect(res.body).toEqual({ id: expect.stringMatching(/^flt_[0-9a-z]{26}$/), ingest: code, times: 1, remaining: 1 });
    }
    await control.delete('/_emulator/faults');
  });

  it('lists queued ingestion failures after the request faults, counting down as ingestions spend them, and counts them cleared (D-1093)', async () => {
    const { api } = await workspace(emulator);
    /** Adds a text source and answers how its ingestion ended: `ready`, or the error it failed with. */
    const ingest = async () => {
      const source = (await api.post('/v1/knowledge/text', { title: 'Hours', text: 'We open at nine.' })).body;
      await emulator.drain();
      const ended = (await api.get(`/v1/knowledge/sources/${source.id}`)).body;
      return ended.status === 'failed' ? ended.error : ended.status;
    };
    const request = (await control.post('/_emulator/faults', { match: { path: '/v1/nothing-here' }, status: 503 })).body;
    const queued = await control.post('/_emulator/faults', { ingest: 'fetch_timeout', times: 3 });
    expect(queued.status).toBe(201);
    expect(queued.body).toEqual({ id: expect.stringMatching(/^flt_[0-9a-z]{26}$/), ingest: 'fetch_timeout', times: 3, remaining: 3 });
    const next = await emulator.injectFault({ ingest: 'ingest_failed' });
    expect(next).toEqual({ id: expect.stringMatching(/^flt_[0-9a-z]{26}$/), ingest: 'ingest_failed', times: 1, remaining: 1 });
    const listed = (remaining: number) => [
      request,
      { id: queued.body.id, ingest: 'fetch_timeout', remaining },
      { id: next.id, ingest: 'ingest_failed', remaining: 1 },
    ];
    expect((await control.get('/_emulator/faults')).body).toEqual({ data: listed(3) });
    expect(await emulator.listFaults()).toEqual(listed(3));

    // Each ingestion takes one from the oldest queue; a spent queue leaves the list.
    expect(await ingest()).toBe('fetch_timeout');
    expect((await control.get('/_emulator/faults')).body.data).toEqual(listed(2));
    expect([await ingest(), await ingest()]).toEqual(['fetch_timeout', 'fetch_timeout']);
    expect(await emulator.listFaults()).toEqual([request, { id: next.id, ingest: 'ingest_failed', remaining: 1 }]);

    // Cleared: the request fault and the queue left, which the next ingestion no longer meets.
    expect((await control.delete('/_emulator/faults')).body).toEqual({ cleared: 2 });
    expect((await control.get('/_emulator/faults')).body.data).toEqual([]);
    expect(await ingest()).toBe('ready');
    await emulator.injectFault({ ingest: 'fetch_timeout', times: 2 });
    expect(await emulator.clearFaults()).toBe(1);
    expect(await ingest()).toBe('ready');
  });

  it('removes one fault or one queue of ingestion failures by its id, leaving the others; 404 for one it lacks (D-1196)', async () => {
    const { api } = await workspace(emulator);
    const openapi = (await control.get('/v1/openapi.json')).body;
    const ingest = async () => {
      const source = (await api.post('/v1/knowledge/text', { title: 'Hours', text: 'We open at nine.' })).body;
      await emulator.drain();
      const ended = (await api.get(`/v1/knowledge/sources/${source.id}`)).body;
      return ended.status === 'failed' ? ended.error : ended.status;
    };
    const agents = (await control.post('/_emulator/faults', { match: { path: '/v1/agents/**' }, status: 503 })).body;
    const me = (await control.post('/_emulator/faults', { match: { path: '/v1/me' }, status: 500, times: 5 })).body;
    const queued = (await control.post('/_emulator/faults', { ingest: 'fetch_timeout', times: 2 })).body;
    const later = (await control.post('/_emulator/faults', { ingest: 'ingest_failed' })).body;
    expect((await api.get('/v1/me')).status).toBe(500);

    // A request fault: answered as listed (its count down included), and requests it matched pass.
    const removed = await control.delete(`/_emulator/faults/${me.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ removed: { ...me, remaining: 4 } });
    expectMatchesOpenApi(openapi, 'DELETE', '/_emulator/faults/{faultId}', 200, removed.body);
    expect((await api.get('/v1/me')).status).toBe(200);

    // A queue of ingestion failures: the next ingestion takes the one after it.
    const dropped = await control.delete(`/_emulator/faults/${queued.id}`);
    expect(dropped.body).toEqual({ removed: { id: queued.id, ingest: 'fetch_timeout', remaining: 2 } });
    expectMatchesOpenApi(openapi, 'DELETE', '/_emulator/faults/{faultId}', 200, dropped.body);
    expect((await control.get('/_emulator/faults')).body.data).toEqual([agents, { id: later.id, ingest: 'ingest_failed', remaining: 1 }]);
    expect(await ingest()).toBe('ingest_failed');

    // Gone, spent or never set: 404, a problem document, and nothing else removed.
    for (const id of [me.id, later.id, 'flt_nope']) {
      const missing = await control.delete(`/_emulator/faults/${id}`);
      expect(missing.status, id).toBe(404);
      expect(missing.headers.get('content-type')).toBe('application/problem+json');
      expect(missing.body).toMatchObject({ status: 404, code: 'svc.resource.not_found', requestId: missing.headers.get('x-request-id') });
    }
    expect((await control.get('/_emulator/faults')).body.data).toEqual([agents]);

    // Guarded as the rest of the control plane: a foreign Host removes nothing.
    const foreign = await send(emulator, 'DELETE', `/_emulator/faults/${agents.id}`, { headers: { host: 'rebind.attacker.example' } });
    expect([foreign.status, foreign.body.code]).toEqual([403, 'svc.auth.forbidden']);

    // The library's member: the same answer, a rejection (never a throw) for a bad id.
    expect(await emulator.removeFault(agents.id)).toEqual(agents);
    await expect(emulator.removeFault(agents.id)).rejects.toMatchObject({ status: 404, code: 'svc.resource.not_found' });
    const notString = emulator.removeFault(7 as unknown as string);
    expect(notString).toBeInstanceOf(Promise);
    await expect(notString).rejects.toMatchObject({ status: 400, code: 'svc.request.validation_failed', errors: [{ field: 'faultId' }] });
    expect(await emulator.listFaults()).toEqual([]);
  });

  it('reset clears the faults, queued ingestion failures too', async () => {
    await control.post('/_emulator/faults', { status: 500 });
    await control.post('/_emulator/faults', { ingest: 'fetch_timeout', times: 2 });
    await control.post('/_emulator/reset');
    expect((await control.get('/_emulator/faults')).body.data).toEqual([]);
  });
});

describe('removing one fault on a store processes share (D-1196)', () => {
  it('a fault removed through one emulator stops failing requests on the other, as a clear does; the others stay', async () => {
    const url = freshDatabase(inject('postgres'), 'faults');
    const one = await createEmulator({ db: url, fixtures: 'none', log: quiet });
    const other = await createEmulator({ db: url, fixtures: 'none', log: quiet });
    try {
      const { api: oneApi, key } = await workspace(one);
      const otherApi = client(other, key);
      const me = await one.injectFault({ match: { path: '/v1/me' }, status: 503 });
      const agents = await one.injectFault({ match: { path: '/v1/agents' }, status: 502 });
      const queued = await one.injectFault({ ingest: 'fetch_timeout', times: 3 });
      expect((await otherApi.get('/v1/me')).status).toBe(503);
      // `one` up to date with the store before the removal: only the removal can tell it.
      expect((await oneApi.get('/v1/agents')).status).toBe(502);
      const removed = await client(other).delete(`/_emulator/faults/${me.id}`);
      expect(removed.body).toEqual({ removed: me });
      expect((await oneApi.get('/v1/me')).status).toBe(200);
      expect((await otherApi.get('/v1/me')).status).toBe(200);
      expect((await oneApi.get('/v1/agents')).status).toBe(502);
      expect(await other.removeFault(queued.id)).toEqual({ id: queued.id, ingest: 'fetch_timeout', remaining: 3 });
      expect(await one.listFaults()).toEqual([agents]);
      await expect(one.removeFault(queued.id)).rejects.toMatchObject({ status: 404, code: 'svc.resource.not_found' });
    } finally {
      await Promise.all([one.close(), other.close()]);
    }
  }, 60_000);
});
