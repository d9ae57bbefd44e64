import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createEmulator, type Emulator, type ListeningServer } from '../../emulator/emulator.js';
import { packageRoot } from '../../emulator/package-info.js';
import { client, type Client } from '../support/client.js';
import { quiet } from '../support/emulator.js';

const SHOTS = join(packageRoot(), 'test-results', 'ui');
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const FULL_KEY = /svc_(test|live)_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}/;

let emulator: Emulator;
let server: ListeningServer;
let browser: Browser;
let control: Client;
let demo: Client;
let demoId: string;
/** Every key secret the emulator has handed out during the test (the fixtures' and the test's own). */
const secrets: string[] = [];

async function keyHashes(target: Emulator): Promise<string[]> {
  return (await target.service.db.selectFrom('api_keys').select('hash').execute()).map((r) => r.hash);
}

interface Watched {
  page: Page;
  /** Screenshot, then: no CSP violation, no page error, no console error but the refusals the test caused, no secret in any answer. */
  finish(name: string, refusals?: RegExp[]): Promise<void>;
}

/** Opens the UI in a new page and watches everything it is sent and everything it complains about. */
async function openUi(target: Emulator, url: string, path = '/_emulator/ui'): Promise<Watched> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const complaints: { text: string; url: string }[] = [];
  const bodies: Promise<{ url: string; text: string }>[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' || /Content Security Policy/i.test(msg.text())) complaints.push({ text: msg.text(), url: msg.location().url });
  });
  page.on('pageerror', (error) => complaints.push({ text: `page error: ${error.message}`, url: '' }));
  page.on('response', (res) => {
    if (res.url().startsWith(url)) bodies.push(res.body().then((b) => ({ url: res.url(), text: b.toString('utf8') }), () => ({ url: res.url(), text: '' })));
  });
  await page.addInitScript(() => {
    const w = globalThis as unknown as { __violations: string[]; document: { addEventListener(t: string, f: (e: { violatedDirective: string; blockedURI: string }) => void): void } };
    w.__violations = [];
    w.document.addEventListener('securitypolicyviolation', (e) => w.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const res = await page.goto(`${url}${path}`);
  expect(res?.status()).toBe(200);
  return {
    page,
    async finish(name, refusals = []) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
      expect(await page.evaluate(() => (globalThis as unknown as { __violations: string[] }).__violations)).toEqual([]);
      // A refused fetch is logged by Chromium as "Failed to load resource": only those the test caused may be there.
      const unexpected = complaints.filter((c) => !(c.text.startsWith('Failed to load resource') && refusals.some((r) => r.test(new URL(c.url).pathname))));
      expect(unexpected).toEqual([]);
      const answers = await Promise.all(bodies);
      expect(answers.length).toBeGreaterThan(3);
      // Keys are stored as their SHA-256: those of keys since deleted are covered through their secrets.
      const forbidden = [...secrets, ...secrets.map((s) => createHash('sha256').update(s).digest('hex')), ...(await keyHashes(target))];
      for (const answer of answers) {
        expect(FULL_KEY.test(answer.text), answer.url).toBe(false);
        for (const secret of forbidden) expect(answer.text.includes(secret), `${answer.url} holds a key secret or hash`).toBe(false);
      }
      await page.close();
    },
  };
}

const panel = (page: Page, id: string) => page.locator(`#${id}`);

beforeAll(async () => {
  emulator = await createEmulator({ fixtures: 'demo', seed: 5, log: quiet });
  server = await emulator.listen({ port: 0 });
  control = client(server.url);
  secrets.push(...emulator.fixtureKeys.map((k) => k.secret));
  demoId = emulator.fixtureKeys[0]!.workspaceId;
  demo = client(server.url, emulator.fixtureKeys.find((k) => k.scopes.length === 13)!.secret);
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
  await emulator?.close();
});

describe('the emulator UI in a real browser', () => {
  it('workspaces: creates one (no key), shows a source added through /v1 becoming ready, its agent and key; refuses bad input; deletes it', async () => {
    const { page, finish } = await openUi(emulator, server.url);
    const ws = panel(page, 'workspaces');
    await ws.locator('button[data-workspace]', { hasText: 'Demo workspace' }).waitFor();

    // Bad input: the emulator's problem document is shown, nothing is created.
    await ws.locator('[name="credits"]').fill('-1');
    await ws.locator('button[type="submit"]').click();
    await expectProblem(page, 'workspaces', 'svc.request.validation_failed', 'credits');
    expect((await control.get('/_emulator/workspaces')).body.data).toHaveLength(1);

    await ws.locator('[name="name"]').fill('Browser workspace');
    await ws.locator('[name="credits"]').fill('5');
    await ws.locator('button[type="submit"]').click();
    await ws.locator('.note', { hasText: 'Created Browser workspace' }).waitFor();
    await page.locator('#resources-name', { hasText: 'Browser workspace' }).waitFor();
    const workspaceId = decodeURIComponent(new URL(page.url()).hash.slice(1));
    expect(workspaceId).toMatch(/^ws_/);
    expect(await page.locator('#resources-credits').textContent()).toContain('5 of 5');

    // The app side: a key minted on the console route (never through the UI), an agent and a source.
    const key = (await control.post(`/workspaces/${workspaceId}/keys`, { name: 'app', scopes: ['landings:read', 'landings:write', 'knowledge:read', 'knowledge:write'] })).body;
    secrets.push(key.secret);
    const app = client(server.url, key.secret);
    const agent = (await app.post('/v1/agents', { name: 'Lola', identity: { businessName: 'Bikes Lola' } })).body;
    const source = (await app.post('/v1/knowledge/text', { title: 'Rentals', text: 'Electric bikes cost 30 euros a day.', agentId: agent.id })).body;
    expect(source.status).toBe('pending');
    const row = page.locator(`[data-rows="sources"] tr[data-id="${source.id}"]`);
    await row.locator('[data-status="ready"]').waitFor();
    expect(await row.locator('td').nth(3).textContent()).toBe('Lola');
    await page.locator(`[data-rows="agents"] tr[data-id="${agent.id}"]`, { hasText: 'Bikes Lola' }).waitFor();
    await page.locator('[data-rows="keys"] tr', { hasText: `${key.prefix}…` }).waitFor();
    expect(await page.locator('[data-count="keys"]').textContent()).toBe('(1)');

    // Delete asks for a second click, then drops the workspace.
    const del = page.locator('#workspace-delete');
    await del.click();
    expect(await del.textContent()).toContain('click again');
    expect((await control.get(`/_emulator/workspaces/${workspaceId}`)).status).toBe(200);
    await del.click();
    await panel(page, 'resources').locator('.note', { hasText: `Deleted ${workspaceId}` }).waitFor();
    await ws.locator('button[data-workspace]', { hasText: 'Browser workspace' }).waitFor({ state: 'detached' });
    expect((await control.get(`/_emulator/workspaces/${workspaceId}`)).status).toBe(404);
    await finish('workspaces', [/^\/_emulator\/workspaces\/keyless$/]);
  });

  it('journal: /v1 requests appear as they are answered, refusals with their code', async () => {
    const { page, finish } = await openUi(emulator, server.url);
    const rows = page.locator('#journal-rows');
    await page.locator('#connection[data-state="live"]').waitFor();
    const ok = await demo.get('/v1/agents');
    await rows.locator(`tr[data-request="${ok.headers.get('x-request-id')}"]`, { hasText: '/v1/agents' }).waitFor();
    const missing = await demo.get('/v1/agents/agt_nope');
    const refused = rows.locator(`tr.refused[data-request="${missing.headers.get('x-request-id')}"]`);
    await refused.waitFor();
    expect(await refused.textContent()).toContain('svc.agent.not_found');
    expect(await refused.textContent()).toContain(`${demo.key!.slice(0, 12)}…`);
    // Newest first.
    expect(await rows.locator('tr').first().getAttribute('data-request')).toBe(missing.headers.get('x-request-id'));
    await finish('journal');
  });

  it('clock and queue: advance a day (the scheduled re-crawl runs), set a time, refuse going back; drain', async () => {
    const { page, finish } = await openUi(emulator, server.url);
    const now = page.locator('#clock-now');
    await page.locator('#queue-rows tr[data-id]').first().waitFor();
    const start = (await control.get('/_emulator/clock')).body.now as string;
    await page.locator('#clock-now', { hasText: start }).waitFor();
    const before = (await control.get('/_emulator/queue')).body.data as { id: string; runAt: string; due: boolean }[];
    const scheduled = before.find((j) => !j.due)!;
    expect(await page.locator(`#queue-rows tr[data-id="${scheduled.id}"]`).textContent()).toContain('scheduled');

    const clock = panel(page, 'clock');
    await clock.locator('[name="amount"]').fill('1');
    await clock.locator('[name="unit"]').selectOption({ label: 'days' });
    await clock.locator('#clock-advance button').click();
    const dayLater = new Date(Date.parse(start) + 86_400_000).toISOString();
    await page.locator('#clock-now', { hasText: dayLater }).waitFor();
    expect(await clock.locator('.note').textContent()).toContain(dayLater);
    if (scheduled.runAt <= dayLater) await page.locator(`#queue-rows tr[data-id="${scheduled.id}"]`).waitFor({ state: 'detached' });

    // Going back: the emulator's refusal, shown with its field.
    await clock.locator('[name="now"]').fill(start);
    await clock.locator('#clock-set button').click();
    await expectProblem(page, 'clock', 'svc.request.validation_failed', 'now');
    expect(await clock.locator('.problem').textContent()).toContain('time only moves forward');
    expect(await now.textContent()).toBe(dayLater);
    // Not a date: the same, from the same route.
    await clock.locator('[name="now"]').fill('tomorrow');
    await clock.locator('#clock-set button').click();
    await clock.locator('.problem', { hasText: 'must be an RFC 3339 date-time' }).waitFor();

    const target = new Date(Date.parse(dayLater) + 3_600_000).toISOString();
    await clock.locator('[name="now"]').fill(target);
    await clock.locator('#clock-set button').click();
    await page.locator('#clock-now', { hasText: target }).waitFor();
    expect(await page.locator('#clock-badge').textContent()).toContain(target.slice(0, 10));

    // Drain: the note says what the emulator answered.
    const drained = page.waitForResponse((r) => r.url().endsWith('/_emulator/queue/drain'));
    await page.locator('#queue-drain').click();
    const { ran } = await (await drained).json();
    await panel(page, 'queue').locator('.note', { hasText: `Drained: ${ran} job` }).waitFor();
    const counts = (await control.get('/_emulator/queue')).body.counts;
    await page.locator('#queue-counts', { hasText: `${counts.queued} queued · ${counts.running} running · ${counts.failed} failed` }).waitFor();
    await finish('clock-queue', [/^\/_emulator\/clock$/]);
  });

  it('faults: a bad body shows its problem; a fault is listed, answers, counts down; an ingestion failure; clear', async () => {
    const { page, finish } = await openUi(emulator, server.url);
    const faults = panel(page, 'faults');
    await faults.locator('#fault-rows tr.empty').waitFor();

    await faults.locator('#fault-add button').click();
    await expectProblem(page, 'faults', 'svc.request.validation_failed');
    expect(await faults.locator('.problem').textContent()).toContain('give a status, a code, or an ingest failure');
    await faults.locator('[name="path"]').fill('v1/agents');
    await faults.locator('[name="status"]').fill('503');
    await faults.locator('#fault-add button').click();
    await faults.locator('.problem', { hasText: 'must start with /' }).waitFor();

    await faults.locator('[name="method"]').selectOption('GET');
    await faults.locator('[name="path"]').fill('/v1/agents');
    await faults.locator('#fault-add [name="times"]').fill('2');
    await faults.locator('#fault-add button').click();
    await faults.locator('.note', { hasText: 'GET /v1/agents answers 503 svc.service.unavailable' }).waitFor();
    const row = faults.locator('#fault-rows tr[data-id]');
    await row.waitFor();
    expect(await row.locator('td').last().textContent()).toBe('2');
    expect((await demo.get('/v1/agents')).status).toBe(503);
    await row.locator('td', { hasText: /^1$/ }).waitFor();

    // The next ingestion fails with the chosen code: the source shows it.
    await faults.locator('[name="ingest"]').selectOption('fetch_timeout');
    await faults.locator('#fault-ingest button').click();
    await faults.locator('.note', { hasText: 'The next 1 ingestion will fail with fetch_timeout' }).waitFor();
    const source = (await demo.post('/v1/knowledge/text', { title: 'Doomed', text: 'This one will not be ingested.' })).body;
    await page.locator('#workspace-rows button[data-workspace]', { hasText: 'Demo workspace' }).click();
    const failed = page.locator(`[data-rows="sources"] tr[data-id="${source.id}"]`);
    await failed.locator('[data-status="failed"]').waitFor();
    expect(await failed.textContent()).toContain('fetch_timeout');

    await faults.locator('#faults-clear').click();
    await faults.locator('.note', { hasText: 'Cleared 1 fault' }).waitFor();
    await faults.locator('#fault-rows tr.empty').waitFor();
    expect((await demo.get('/v1/agents')).status).toBe(200);
    await demo.delete(`/v1/knowledge/sources/${source.id}`);
    await finish('faults', [/^\/_emulator\/faults$/]);
  });

  it('state: downloads a snapshot, restores it, shows the problem of a bad one, and resets to the fixtures', async () => {
    const { page, finish } = await openUi(emulator, server.url);
    const state = panel(page, 'state');
    await page.locator('#connection[data-state="live"]').waitFor();
    const expected = (await control.get('/_emulator/state')).body;
    const download = page.waitForEvent('download');
    await state.locator('#state-download').click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^svc-emulator-state-.+\.json$/);
    const saved = join(SHOTS, 'snapshot.json');
    mkdirSync(SHOTS, { recursive: true });
    await file.saveAs(saved);
    expect(JSON.parse(readFileSync(saved, 'utf8'))).toEqual(expected);
    await state.locator('.note', { hasText: 'Downloaded the snapshot' }).waitFor();

    await control.post('/_emulator/workspaces/keyless', { name: 'Made after the snapshot' });
    const extra = page.locator('#workspace-rows button', { hasText: 'Made after the snapshot' });
    await extra.waitFor();
    await state.locator('[name="file"]').setInputFiles(saved);
    await state.locator('#state-upload button').click();
    await state.locator('.note', { hasText: 'Restored snapshot.json' }).waitFor();
    await extra.waitFor({ state: 'detached' });
    expect((await control.get('/_emulator/state')).body).toEqual(expected);

    // A file that is not a snapshot: the emulator's refusal, with the field it names.
    const bad = join(SHOTS, 'not-a-snapshot.json');
    writeFileSync(bad, JSON.stringify({ format: 'something-else', version: 1 }));
    await state.locator('[name="file"]').setInputFiles(bad);
    await state.locator('#state-upload button').click();
    await expectProblem(page, 'state', 'svc.request.validation_failed', 'format');
    expect((await control.get('/_emulator/state')).body).toEqual(expected);

    await control.post('/_emulator/workspaces/keyless', { name: 'Gone at reset' });
    await page.locator('#workspace-rows button', { hasText: 'Gone at reset' }).waitFor();
    await state.locator('#state-reset').click();
    await state.locator('#state-reset').click();
    await state.locator('.note', { hasText: 'back to the loaded fixtures' }).waitFor();
    await page.locator('#workspace-rows button', { hasText: 'Gone at reset' }).waitFor({ state: 'detached' });
    expect((await control.get('/_emulator/workspaces')).body.data.map((w: { id: string }) => w.id)).toEqual([demoId]);
    await finish('state', [/^\/_emulator\/state$/]);
  });

  it('chat: streams a demo agent’s reply as the workspace; a turn without credits shows its problem', async () => {
    const { page, finish } = await openUi(emulator, server.url, `/_emulator/ui#${demoId}`);
    const chat = panel(page, 'chat');
    const aurora = page.locator('[data-rows="agents"] tr').filter({ has: page.locator('td:first-child', { hasText: /^Aurora$/ }) });
    await aurora.locator('button[data-chat]').click();
    expect(await chat.locator('#chat-agent option:checked').textContent()).toContain('Aurora');
    await chat.locator('[name="message"]').fill('How long does shipping to Portugal take?');
    const streamed = page.waitForResponse((r) => r.url().endsWith('/chat'));
    await chat.locator('button[type="submit"]').click();
    expect((await streamed).headers()['content-type']).toContain('text/event-stream');
    const reply = chat.locator('.chat-log .agent[data-done="true"]');
    await reply.waitFor();
    expect(await reply.textContent()).toMatch(/3 to 5 working days/);
    expect(await chat.locator('.chat-log .user').textContent()).toBe('How long does shipping to Portugal take?');
    await page.locator('#resources-credits', { hasText: '999 of 1000' }).waitFor();

    await control.patch(`/_emulator/workspaces/${demoId}`, { credits: 1 });
    await chat.locator('[name="message"]').fill('And to Spain?');
    await chat.locator('button[type="submit"]').click();
    await expectProblem(page, 'chat', 'svc.usage.quota_exhausted');
    expect(await chat.locator('.chat-log .agent').last().getAttribute('data-failed')).toBe('true');
    await control.post('/_emulator/reset');
    await finish('chat', [/\/chat$/]);
  });
});

describe('the emulator UI with an admin token', () => {
  it('asks for the token once, refuses a wrong one, sends it only as a header, and keeps it for the tab', async () => {
    const guarded = await createEmulator({ fixtures: 'demo', seed: 6, adminToken: 'ui-token-123', log: quiet });
    const listening = await guarded.listen({ port: 0 });
    try {
      const { page, finish } = await openUi(guarded, listening.url);
      const sent: { url: string; authorization: string | undefined }[] = [];
      page.on('request', (r) => sent.push({ url: r.url(), authorization: r.headers().authorization }));
      const dialog = page.locator('#token-dialog');
      await dialog.locator('[name="token"]').waitFor();
      expect(await page.locator('#workspace-rows tr').count()).toBe(0);
      await dialog.locator('[name="token"]').fill('wrong-token');
      await dialog.locator('button[type="submit"]').click();
      await dialog.locator('#token-problem', { hasText: 'refused' }).waitFor();
      await dialog.locator('[name="token"]').fill('ui-token-123');
      await dialog.locator('button[type="submit"]').click();
      await page.locator('#workspace-rows button', { hasText: 'Demo workspace' }).waitFor();
      expect(await dialog.isVisible()).toBe(false);

      // A reload keeps the token for this tab: no dialog again.
      await page.reload();
      await page.locator('#workspace-rows button', { hasText: 'Demo workspace' }).waitFor();
      expect(await dialog.isVisible()).toBe(false);
      await page.locator('#connection[data-state="live"]').waitFor();

      expect(sent.some((r) => r.url.includes('ui-token-123'))).toBe(false);
      const data = sent.filter((r) => new URL(r.url).pathname.startsWith('/_emulator/') && !new URL(r.url).pathname.startsWith('/_emulator/ui'));
      expect(data.length).toBeGreaterThan(5);
      expect(data.filter((r) => r.authorization === 'Bearer ui-token-123').length).toBeGreaterThan(5);
      expect(data.every((r) => r.authorization === undefined || r.authorization.startsWith('Bearer '))).toBe(true);
      const files = sent.filter((r) => new URL(r.url).pathname.startsWith('/_emulator/ui'));
      expect(files.every((r) => r.authorization === undefined)).toBe(true);
      secrets.push(...guarded.fixtureKeys.map((k) => k.secret), 'ui-token-123');
      // The token itself is in no answer either (it is in the list of secrets now).
      await finish('admin-token', [/^\/_emulator\/(clock|requests|queue|faults|workspaces)/]);
    } finally {
      await guarded.close();
    }
  });
});

async function expectProblem(page: Page, panelId: string, code: string, field?: string): Promise<void> {
  const box = page.locator(`#${panelId} .problem`);
  await box.locator('code', { hasText: code }).first().waitFor();
  if (field) await box.locator('li code', { hasText: field }).first().waitFor();
}
