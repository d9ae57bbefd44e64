import { rawRequest, type RawAnswer } from '../support/raw-request.js';
import { describe, expect, it } from 'vitest';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../emulator/emulator.js';
import { send } from '../support/client.js';
import { fileEmulator, quiet, workspace } from '../support/emulator.js';

const emulator = await fileEmulator({ seed: 61 });

/** A workspace with an agent page published at `http://<slug>.localhost/`. */
async function agentSite(emulator: Emulator, slug: string, credits?: number) {
  const ws = await workspace(emulator, credits === undefined ? {} : { credits });
  const agent = (await ws.api.post('/v1/agents', { name: 'Sol', identity: { businessName: 'Sol' } })).body;
  await ws.api.post('/v1/knowledge/text', { title: 'Hours', text: 'We open every day from 10:00 to 22:00.', agentId: agent.id });
  const project = (await ws.api.post('/v1/projects', { name: slug, slug })).body;
  const page = (await ws.api.post(`/v1/projects/${project.id}/pages`, { name: 'Home', kind: 'agent', path: '/', agentId: agent.id })).body;
  expect((await ws.api.post(`/v1/pages/${page.id}/publish`)).status).toBe(200);
  await emulator.drain();
  const used = async () => (await ws.api.get('/v1/usage')).body.messages as { used: number; remaining: number };
  return { ...ws, agent, used };
}

/** A visitor's question in process: opens the turn and, when opened, reads its stream. */
async function ask(emulator: Emulator, slug: string, headers: Record<string, string> = {}) {
  const opened = await send(emulator, 'POST', `http://${slug}.localhost/_site/chat`, { body: { path: '/', message: 'When do you open?' }, headers });
  if (opened.status === 201) expect((await send(emulator, 'GET', `http://${slug}.localhost${opened.body.streamUrl}`)).text).toContain('event: done');
  return opened;
}

describe('site chat visitors in process (one shared visitor)', () => {
  it('get 10 turns per minute on the emulated clock, then 429 with Retry-After, spending nothing', async () => {
    const site = await agentSite(emulator, 'visitor-limit');
    for (let i = 0; i < 10; i++) expect((await ask(emulator, 'visitor-limit')).status).toBe(201);
    expect((await site.used()).used).toBe(10);
    // A forged X-Forwarded-For is not another visitor.
    const refused = await ask(emulator, 'visitor-limit', { 'x-forwarded-for': '203.0.113.9' });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('svc.rate_limit.exceeded');
    // Seeded, the clock stands still: the visitor is told how the window ends (D-1226).
    expect(refused.body.detail).toMatch(/^Too many questions from this visitor; .* The emulated clock is frozen .*POST \/_emulator\/clock/);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect((await site.used()).used).toBe(10);
    // The owner's own turns are not the visitor's.
    expect((await site.api.post(`/v1/agents/${site.agent.id}/chat`, { message: 'When do you open?' })).status).toBe(200);
    // Another workspace's site counts its visitors on its own.
    await agentSite(emulator, 'visitor-other');
    expect((await ask(emulator, 'visitor-other')).status).toBe(201);
    if (wait > 1) {
      await emulator.clock.advance(1000);
      expect(Number((await ask(emulator, 'visitor-limit')).headers.get('retry-after'))).toBe(wait - 1);
    }
    await emulator.clock.advance((wait - 1) * 1000);
    expect((await ask(emulator, 'visitor-limit')).status).toBe(201);
  });

  it('never spend the share of credits kept for the owner, whose /v1 chat still answers', async () => {
    // 20 credits: 10% (2) is the owner's.
    const site = await agentSite(emulator, 'owner-reserve', 20);
    let answered = 0;
    let last = await ask(emulator, 'owner-reserve', { 'accept-language': 'en' });
    for (let i = 0; i < 40 && last.status !== 402; i++) {
      if (last.status === 201) answered += 1;
      else if (last.status === 429) await emulator.clock.advance(Number(last.headers.get('retry-after')) * 1000);
      else throw new Error(`unexpected ${last.status}`);
      last = await ask(emulator, 'owner-reserve', { 'accept-language': 'en' });
    }
    expect(answered).toBe(18);
    expect(last.status).toBe(402);
    expect(last.body.code).toBe('svc.usage.quota_exhausted');
    expect(last.body.detail).toMatch(/kept for its owner/);
    expect(await site.used()).toMatchObject({ used: 18, remaining: 2 });
    // Time does not give visitors the reserve.
    await emulator.clock.advance(86_400_000);
    expect((await ask(emulator, 'owner-reserve')).status).toBe(402);
    expect((await site.used()).remaining).toBe(2);
    // The owner spends the reserve; then the workspace is out, for the owner too.
    const chat = (message: string) => site.api.post(`/v1/agents/${site.agent.id}/chat`, { message });
    expect((await chat('When do you open?')).status).toBe(200);
    expect((await chat('Are you open on Sunday?')).status).toBe(200);
    const out = await chat('And tomorrow?');
    expect(out.status).toBe(402);
    expect(out.body.detail).not.toMatch(/owner/);
    // More credits: visitors may use them down to the new reserve (10% of 40 = 4).
    expect((await site.control.patch(`/_emulator/workspaces/${site.workspaceId}`, { credits: 40 })).status).toBe(200);
    expect((await ask(emulator, 'owner-reserve')).status).toBe(201);
    expect(await site.used()).toMatchObject({ used: 21, remaining: 19 });
  });

  it('keep the reserve when visitors ask all at once', async () => {
    // 8 credits: 10% rounds up to 1 kept, 7 for visitors; 10 questions race for them.
    const site = await agentSite(emulator, 'owner-race', 8);
    const answers = await Promise.all(Array.from({ length: 10 }, () => ask(emulator, 'owner-race')));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 201, 201, 201, 201, 402, 402, 402]);
    expect(await site.used()).toMatchObject({ used: 7, remaining: 1 });
    expect((await site.api.post(`/v1/agents/${site.agent.id}/chat`, { message: 'When do you open?' })).status).toBe(200);
  });
});

type Answer = RawAnswer;

/** One request to the listening emulator from a chosen local address. */
function over(
  port: number,
  host: string,
  method: string,
  path: string,
  options: { from?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return rawRequest({
    port,
    method,
    path,
    localAddress: options.from ?? '127.0.0.1',
    headers: { host: `${host}:${port}`, ...(body && { 'content-type': 'application/json' }), ...options.headers },
    ...(body !== undefined && { body }),
  });
}

/** An emulator of its own, served on a port, closed after `run`. */
async function onPort(options: EmulatorOptions, run: (emulator: Emulator, port: number) => Promise<void>): Promise<void> {
  const emulator = await createEmulator({ log: quiet, ...options });
  try {
    await run(emulator, (await emulator.listen({ port: 0 })).port);
  } finally {
    await emulator.close();
  }
}

describe('site chat visitors on a port', () => {
  it('are told apart by their connection address, never by X-Forwarded-For', () =>
    onPort({ seed: 62, siteChat: { visitorTurns: 2 } }, async (emulator, port) => {
      await agentSite(emulator, 'by-socket');
      const askFrom = async (from: string, headers: Record<string, string> = {}) => {
        const opened = await over(port, 'by-socket.localhost', 'POST', '/_site/chat', { from, headers, body: { path: '/', message: 'When do you open?' } });
        if (opened.status === 201) await over(port, 'by-socket.localhost', 'GET', JSON.parse(opened.text).streamUrl, { from });
        return opened;
      };
      expect((await askFrom('127.0.0.1')).status).toBe(201);
      expect((await askFrom('127.0.0.1', { 'x-forwarded-for': '198.51.100.1' })).status).toBe(201);
      const third = await askFrom('127.0.0.1', { 'x-forwarded-for': '198.51.100.2' });
      expect(third.status).toBe(429);
      expect(third.headers['retry-after']).toMatch(/^\d+$/);
      expect(third.headers['content-security-policy']).toContain("default-src 'none'");
      // Another address is another visitor; so is none in process.
      expect((await askFrom('127.0.0.2')).status).toBe(201);
      expect((await ask(emulator, 'by-socket')).status).toBe(201);
    }));

  it('are read from X-Forwarded-For only when told a proxy sets it, by /64 for IPv6', () =>
    onPort({ seed: 63, siteChat: { visitorTurns: 1, trustForwardedFor: true } }, async (emulator, port) => {
      await agentSite(emulator, 'by-proxy');
      const askAs = async (forwardedFor: string) =>
        (
          await over(port, 'by-proxy.localhost', 'POST', '/_site/chat', {
            headers: { 'x-forwarded-for': forwardedFor },
            body: { path: '/', message: 'When do you open?' },
          })
        ).status;
      expect(await askAs('203.0.113.5')).toBe(201);
      expect(await askAs('203.0.113.6')).toBe(201);
      // The proxy appends what it saw: what the visitor wrote before it does not count.
      expect(await askAs('198.51.100.7, 203.0.113.5')).toBe(429);
      expect(await askAs('2001:db8:0:1::1')).toBe(201);
      expect(await askAs('2001:db8:0:1::ffff')).toBe(429);
      expect(await askAs('2001:db8:0:2::1')).toBe(201);
      expect(await askAs('::ffff:203.0.113.6')).toBe(429);
    }));
});
