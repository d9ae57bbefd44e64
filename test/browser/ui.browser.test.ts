import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createEmulator, type Emulator, type ListeningServer } from '../../emulator/emulator.js';
import { UI_SECTIONS } from '../../emulator/ui/ui-paths.js';
import { client, type Client } from '../support/client.js';
import { SHOTS, expectProblem, fitsScreen, FULL_KEY, launch, openUi, shot } from './ui-support.js';

// Each test walks the UI through many one-second polls in a real browser: on a busy
// 2-core machine that takes longer than the suite's default.
vi.setConfig({ testTimeout: 120_000 });

let emulator: Emulator;
let server: ListeningServer;
let browser: Browser;
let control: Client;
let demo: Client;
let demoId: string;
/** Every key secret the emulator has handed out during the test (the fixtures' and the test's own). */
const secrets: string[] = [];
/** What the emulator logged (its own log and the request log): no secret may be in it. */
const logged: string[] = [];

const open = (path?: string) => openUi(browser, emulator, server.url, path, secrets);
const section = (page: Page, id: string) => page.locator(`section#${id}`);
const pathOf = (page: Page) => new URL(page.url()).pathname;

beforeAll(async () => {
  emulator = await createEmulator({ fixtures: 'demo', seed: 5, log: (message, error) => logged.push(`${String(message)} ${String(error ?? '')}`) });
  server = await emulator.listen({ port: 0, log: (line) => logged.push(line) });
  control = client(server.url);
  secrets.push(...emulator.fixtureKeys.map((k) => k.secret));
  demoId = emulator.fixtureKeys[0]!.workspaceId;
  demo = client(server.url, emulator.fixtureKeys.find((k) => k.scopes.length === 13)!.secret);
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  await emulator?.close();
});

describe('the emulator UI: sections a user navigates', () => {
  it('has an address per section: by clicking, by URL, back and forward, reload, the first UI’s #workspace link; each fits a laptop screen', async () => {
    const { page, finish } = await open();
    // The bare address opens Workspaces, on the first workspace.
    await page.waitForURL(`**/_emulator/ui/workspaces?workspace=${demoId}`);
    await section(page, 'workspaces').locator('#detail-name', { hasText: 'Demo workspace' }).waitFor();
    for (const { id, label } of UI_SECTIONS) {
      await page.locator(`nav.side a[data-nav="${id}"]`).click();
      expect(pathOf(page)).toBe(`/_emulator/ui/${id}`);
      expect(new URL(page.url()).searchParams.get('workspace')).toBe(demoId);
      await section(page, id).waitFor();
      expect(await page.locator('main > section.section:visible').count()).toBe(1);
      expect(await page.locator(`nav.side a[aria-current="page"]`).textContent()).toBe(label);
      expect(await page.title()).toBe(`${label} · svc-emulator`);
      await page.locator('#connection[data-state="live"]').waitFor();
      await page.waitForTimeout(300);
      expect(await fitsScreen(page), id).toEqual({ page: true, main: true });
      await shot(page, `section-${id}`);
    }
    // Back and forward walk the sections; a reload stays.
    await page.goBack();
    await section(page, 'clock').waitFor();
    expect(pathOf(page)).toBe('/_emulator/ui/clock');
    await page.goBack();
    await section(page, 'faults').waitFor();
    await page.goForward();
    await section(page, 'clock').waitFor();
    await page.reload();
    await section(page, 'clock').waitFor();
    expect(await section(page, 'state').isHidden()).toBe(true);
    // A deep link, and the first UI's address for a workspace.
    await page.goto(`${server.url}/_emulator/ui/queue?workspace=${demoId}`);
    await section(page, 'queue').locator('[data-rows="queue"] tr[data-id]').first().waitFor();
    await page.goto(`${server.url}/_emulator/ui#${demoId}`);
    await page.waitForURL(`**/_emulator/ui/workspaces?workspace=${demoId}`);
    // The header's clock is a link to its section.
    await page.locator('#clock-badge').click();
    await section(page, 'clock').waitFor();
    expect((await control.get('/_emulator/ui/nope')).status).toBe(404);
    // Sites link to the hosted pages on this port, an address the UI reads from its own
    // page: none of its calls is in the journal (D-168), not even one to the home page.
    await page.locator('nav.side a[data-nav="sites"]').click();
    const port = new URL(server.url).port;
    await section(page, 'sites').locator(`a[href="http://cafe-aurora.localhost:${port}/"]`).first().waitFor();
    // A document page's heading is its body's, as its site shows it (D-1202).
    const menu = section(page, 'sites').locator('[data-rows="pages"] tr', { hasText: '/menu' });
    expect(await menu.locator('td').nth(2).textContent()).toBe('Carta');
    const journal = (await control.get('/_emulator/requests?limit=1000')).body.data as { path: string }[];
    expect(journal.filter((entry) => entry.path === '/')).toEqual([]);
    await finish('navigation');
  });
});

describe('the emulator UI: workspaces and keys', () => {
  it('creates a workspace with a key whose secret shows once (copy, then never again), refuses bad input with its problem', async () => {
    const { page, finish, handedOut } = await open('/_emulator/ui/workspaces');
    const ws = section(page, 'workspaces');
    const create = ws.locator('#workspace-create');
    await ws.locator('button[data-workspace]', { hasText: 'Demo workspace' }).waitFor();

    // Bad input: the emulator's problem document, the field marked, nothing created.
    await create.locator('[name="credits"]').fill('-1');
    await create.locator('button[type="submit"]').click();
    await expectProblem(page, '#workspaces', 'svc.request.validation_failed', 'credits');
    expect(await create.locator('[name="credits"]').getAttribute('aria-invalid')).toBe('true');
    expect((await control.get('/_emulator/workspaces')).body.data).toHaveLength(1);
    await create.locator('[name="credits"]').fill('1.5');
    await create.locator('button[type="submit"]').click();
    await ws.locator('.problem', { hasText: 'must be a whole number' }).waitFor();

    await create.locator('[name="name"]').fill('Browser workspace');
    await create.locator('[name="credits"]').fill('5');
    await create.locator('button[type="submit"]').click();
    await ws.locator('.note', { hasText: 'Created workspace' }).waitFor();
    expect(await create.locator('[name="credits"]').getAttribute('aria-invalid')).toBeNull();
    await page.locator('#detail-name', { hasText: 'Browser workspace' }).waitFor();
    const workspaceId = new URL(page.url()).searchParams.get('workspace')!;
    expect(workspaceId).toMatch(/^ws_/);
    const secret = await page.locator('#secret-value').inputValue();
    expect(secret).toMatch(new RegExp(`^${FULL_KEY.source}$`));
    secrets.push(secret);
    expect((await client(server.url, secret).get('/v1/me')).body.workspaceId).toBe(workspaceId);
    // The same credits in the list and in the detail.
    await ws.locator(`[data-rows="workspaces"] tr[data-id="${workspaceId}"]`, { hasText: '5 of 5 left' }).waitFor();
    expect(await page.locator('#resources-credits').textContent()).toContain('5 of 5 left');
    // The key's row: name and prefix only.
    const row = ws.locator('[data-rows="keys"] tr[data-id]');
    await row.locator('[data-status="active"]').waitFor();
    expect(await row.textContent()).toContain(`${secret.slice(0, 12)}…`);
    expect(await row.textContent()).not.toContain(secret);
    await shot(page, 'workspace-secret-once');

    await page.locator('#secret-copy').click();
    await ws.locator('.note', { hasText: 'Copied' }).waitFor();
    expect(
      await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText()),
    ).toBe(secret);
    await page.locator('#secret-done').click();
    expect(await page.locator('#secret-box').isHidden()).toBe(true);
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await ws.locator('[data-rows="keys"] tr[data-id]').waitFor();
    expect(await page.content()).not.toContain(secret);
    expect(await page.locator('#secret-box').isHidden()).toBe(true);

    expect((await handedOut()).filter((a) => a.keys.includes(secret)).map((a) => a.path)).toEqual(['/_emulator/workspaces']);
    await finish('workspace-created', [/^\/_emulator\/workspaces$/]);
  });

  it('mints and revokes keys through the console routes: the secret once, the two-key limit’s problem, a revoked row says so', async () => {
    const made = (await control.post('/_emulator/workspaces/keyless', { name: 'Keys workspace' })).body;
    const { page, finish, handedOut } = await open(`/_emulator/ui/workspaces?workspace=${made.id}`);
    const ws = section(page, 'workspaces');
    const mint = ws.locator('#key-mint');
    await page.locator('#detail-name', { hasText: 'Keys workspace' }).waitFor();
    await ws.locator('[data-rows="keys"] tr.empty').waitFor();

    // Refusals of the emulator, each with the field it names.
    await mint.locator('[name="name"]').fill('');
    await mint.locator('button[type="submit"]').click();
    await expectProblem(page, '#workspaces', 'svc.request.validation_failed', 'name');
    expect(await mint.locator('[name="name"]').getAttribute('aria-invalid')).toBe('true');
    await mint.locator('[name="name"]').fill('ci');
    await mint.locator('summary').click();
    await mint.locator('button[data-scopes="none"]').click();
    expect(await mint.locator('[data-scope-count]').textContent()).toBe('0 of 13');
    await mint.locator('button[type="submit"]').click();
    await expectProblem(page, '#workspaces', 'svc.request.validation_failed', 'scopes');
    await mint.locator('label', { hasText: 'chat:write' }).locator('input').check();
    await mint.locator('label', { hasText: 'landings:read' }).locator('input').check();
    await mint.locator('[name="expiresAt"]').fill('2020-01-01T00:00:00Z');
    await mint.locator('button[type="submit"]').click();
    await expectProblem(page, '#workspaces', 'svc.request.validation_failed', 'expiresAt');
    await mint.locator('[name="expiresAt"]').fill('');

    const minted: string[] = [];
    for (const name of ['ci', 'deploy']) {
      await mint.locator('[name="name"]').fill(name);
      await mint.locator('button[type="submit"]').click();
      await ws.locator('.note', { hasText: `Minted ${name}` }).waitFor();
      const secret = await page.locator('#secret-value').inputValue();
      expect(secret).toMatch(new RegExp(`^${FULL_KEY.source}$`));
      expect(await page.locator('#secret-meta').textContent()).toContain('landings:read chat:write');
      secrets.push(secret);
      minted.push(secret);
      await ws.locator(`[data-rows="keys"] tr`, { hasText: `${secret.slice(0, 12)}…` }).waitFor();
    }
    expect(await ws.locator('[data-count="keys"]').textContent()).toBe('(2 active of 2)');
    // A third active key: the emulator's 409, shown as it answered it.
    await mint.locator('[name="name"]').fill('third');
    await mint.locator('button[type="submit"]').click();
    await expectProblem(page, '#workspaces', 'svc.api_key.limit_reached');
    expect(await page.locator('#workspace-detail .problem').textContent()).toContain('409');
    expect(await page.locator('#secret-value').inputValue()).toBe(minted[1]);
    await shot(page, 'keys-limit');
    await page.locator('#secret-done').click();

    // Revoke asks twice; the row then says it is revoked, and /v1 refuses the key at once.
    const first = ws.locator('[data-rows="keys"] tr', { hasText: `${minted[0]!.slice(0, 12)}…` });
    await first.locator('button[data-revoke]').click();
    expect(await first.locator('button[data-revoke]').textContent()).toContain('click again');
    await first.locator('button[data-revoke]').click();
    await ws.locator('.note', { hasText: 'Revoked ci' }).waitFor();
    await first.locator('[data-status="revoked"]').waitFor();
    expect(await first.textContent()).toMatch(/revoked 20\d\d-/);
    expect(await first.locator('button[data-revoke]').count()).toBe(0);
    expect((await client(server.url, minted[0]).get('/v1/me')).status).toBe(401);
    expect(await ws.locator('[data-count="keys"]').textContent()).toBe('(1 active of 2)');
    expect(await page.content()).not.toMatch(FULL_KEY);

    // Each secret was in its own creation answer only: not in the lists, not in the journal, not logged.
    expect((await handedOut()).filter((a) => a.keys.length).map((a) => a.path)).toEqual([`/workspaces/${made.id}/keys`, `/workspaces/${made.id}/keys`]);
    const journal = (await control.get('/_emulator/requests?limit=1000')).text;
    const keyList = (await control.get(`/workspaces/${made.id}/keys`)).text;
    for (const secret of minted) {
      expect(journal).not.toContain(secret);
      expect(keyList).not.toContain(secret);
      expect(logged.join('\n')).not.toContain(secret);
    }
    expect(journal).toContain(`/workspaces/${made.id}/keys`);

    // Delete asks for a second click, then drops the workspace.
    const del = page.locator('#workspace-delete');
    await del.click();
    await del.click();
    await ws.locator('.note', { hasText: `Deleted ${made.id}` }).waitFor();
    expect((await control.get(`/_emulator/workspaces/${made.id}`)).status).toBe(404);
    await page.waitForURL(`**/workspaces?workspace=${demoId}`);
    await finish('keys', [/^\/workspaces\/[^/]+\/keys$/]);
  });
});

describe('the emulator UI: clock, queue, faults, state', () => {
  it('clock and queue: a valid time is suggested; a refusal goes once a later move succeeds; a drain says what waits for the clock', async () => {
    const { page, finish } = await open('/_emulator/ui/clock');
    const clock = section(page, 'clock');
    const start = (await control.get('/_emulator/clock')).body.now as string;
    await page.locator('#clock-now', { hasText: start }).waitFor();
    // The suggested time is after now, so Set works as offered.
    const suggested = await clock.locator('[name="now"]').inputValue();
    expect(Date.parse(suggested)).toBeGreaterThan(Date.parse(start));
    expect(await clock.locator('[name="now"]').getAttribute('placeholder')).toBe(suggested);
    await clock.locator('#clock-set button').click();
    await page.locator('#clock-now', { hasText: suggested }).waitFor();
    expect(await clock.locator('.note').textContent()).toContain(suggested);
    const next = await clock.locator('[name="now"]').inputValue();
    expect(Date.parse(next)).toBeGreaterThan(Date.parse(suggested));

    // Going back: the emulator's refusal, with its field; then a later success replaces it.
    await clock.locator('[name="now"]').fill(start);
    await clock.locator('#clock-set button').click();
    await expectProblem(page, '#clock', 'svc.request.validation_failed', 'now');
    expect(await clock.locator('.problem').textContent()).toContain('time only moves forward');
    expect(await clock.locator('[name="now"]').getAttribute('aria-invalid')).toBe('true');
    await clock.locator('[name="amount"]').fill('x');
    await clock.locator('#clock-advance button').click();
    await clock.locator('.problem', { hasText: 'must be a whole number' }).waitFor();
    await clock.locator('[name="amount"]').fill('1');
    await clock.locator('button[data-advance="3600000"]').click();
    const later = new Date(Date.parse(suggested) + 3_600_000).toISOString();
    await page.locator('#clock-now', { hasText: later }).waitFor();
    await clock.locator('.note', { hasText: later }).waitFor();
    expect(await clock.locator('.problem').isHidden()).toBe(true);
    expect(await clock.locator('[aria-invalid]').count()).toBe(0);
    expect(await page.locator('#clock-badge').textContent()).toContain(later.slice(0, 10));

    // The queue: the scheduled re-crawl, its workspace shown whole; a drain says why it did not run.
    await page.locator('nav.side a[data-nav="queue"]').click();
    const queue = section(page, 'queue');
    const scheduled = ((await control.get('/_emulator/queue')).body.data as { id: string; runAt: string; due: boolean }[]).find((j) => !j.due)!;
    const row = queue.locator(`[data-rows="queue"] tr[data-id="${scheduled.id}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('scheduled');
    const cell = row.locator('td').nth(4);
    expect(await cell.textContent()).toContain(`Demo workspace ${demoId}`);
    expect(
      await cell.evaluate((td) => {
        const el = td as unknown as { scrollWidth: number; clientWidth: number };
        return el.scrollWidth <= el.clientWidth;
      }),
    ).toBe(true);
    await queue.locator('#queue-drain').click();
    const note = queue.locator('.note', { hasText: 'Drained: 0 jobs ran.' });
    await note.waitFor();
    expect(await note.textContent()).toContain('1 job is scheduled for later and not due yet');
    expect(await note.textContent()).toContain('advance the clock to run it');
    await shot(page, 'queue-drained');

    // Bring it due: the clock runs it, the queue shows it gone.
    await control.post('/_emulator/clock', { now: scheduled.runAt });
    await row.waitFor({ state: 'detached' });
    await finish('clock-queue', [/^\/_emulator\/clock$/]);
  });

  it('faults: a bad body shows its problem; a fault is listed, answers, counts down; an ingestion failure shows on the source; clear', async () => {
    const { page, finish } = await open('/_emulator/ui/faults');
    const faults = section(page, 'faults');
    await faults.locator('[data-rows="faults"] tr.empty').waitFor();

    await faults.locator('#fault-add button').click();
    await expectProblem(page, '#faults', 'svc.request.validation_failed');
    expect(await faults.locator('.problem').textContent()).toContain('give a status, a code, or an ingest failure');
    await faults.locator('[name="path"]').fill('v1/agents');
    await faults.locator('[name="status"]').fill('503');
    await faults.locator('#fault-add button').click();
    await faults.locator('.problem', { hasText: 'must start with /' }).waitFor();
    expect(await faults.locator('[name="path"]').getAttribute('aria-invalid')).toBe('true');

    await faults.locator('[name="method"]').selectOption('GET');
    await faults.locator('[name="path"]').fill('/v1/agents');
    await faults.locator('#fault-add [name="times"]').fill('2');
    await faults.locator('#fault-add button').click();
    await faults.locator('.note', { hasText: 'GET /v1/agents answers 503 svc.service.unavailable, 2 times' }).waitFor();
    const row = faults.locator('[data-rows="faults"] tr[data-id]');
    await row.waitFor();
    expect(await row.locator('td').nth(3).textContent()).toBe('2');
    expect((await demo.get('/v1/agents')).status).toBe(503);
    await row.locator('td', { hasText: /^1$/ }).waitFor();

    // The next ingestion fails with the chosen code: Knowledge shows it.
    await faults.locator('[name="ingest"]').selectOption('fetch_timeout');
    await faults.locator('#fault-ingest button').click();
    await faults.locator('.note', { hasText: 'The next 1 ingestion will fail with fetch_timeout' }).waitFor();
    const source = (await demo.post('/v1/knowledge/text', { title: 'Doomed', text: 'This one will not be ingested.' })).body;
    await page.locator('nav.side a[data-nav="knowledge"]').click();
    const failed = section(page, 'knowledge').locator(`[data-rows="sources"] tr[data-id="${source.id}"]`);
    await failed.locator('[data-status="failed"]').waitFor();
    expect(await failed.textContent()).toContain('fetch_timeout');
    await shot(page, 'knowledge-failed-source');

    await page.goBack();
    await faults.locator('#faults-clear').click();
    await faults.locator('.note', { hasText: 'Cleared 1 fault' }).waitFor();
    await faults.locator('[data-rows="faults"] tr.empty').waitFor();
    expect((await demo.get('/v1/agents')).status).toBe(200);
    await demo.delete(`/v1/knowledge/sources/${source.id}`);
    await finish('faults', [/^\/_emulator\/faults$/]);
  });

  it('state: downloads a snapshot, restores it, shows the problem of a bad one, and resets to the fixtures', async () => {
    const { page, finish } = await open('/_emulator/ui/state');
    const state = section(page, 'state');
    await page.locator('#connection[data-state="live"]').waitFor();
    const expected = (await control.get('/_emulator/state')).body;
    const download = page.waitForEvent('download');
    await state.locator('#state-download').click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^svc-emulator-state-.+\.json$/);
    mkdirSync(SHOTS, { recursive: true });
    const saved = join(SHOTS, 'snapshot.json');
    await file.saveAs(saved);
    expect(JSON.parse(readFileSync(saved, 'utf8'))).toEqual(expected);
    await state.locator('.note', { hasText: 'Downloaded the snapshot' }).waitFor();

    await state.locator('#state-upload button').click();
    await expectProblem(page, '#state', 'file');
    await control.post('/_emulator/workspaces/keyless', { name: 'Made after the snapshot' });
    const picker = page.locator('#workspace-picker option', { hasText: 'Made after the snapshot' });
    await picker.waitFor({ state: 'attached' });
    await state.locator('[name="file"]').setInputFiles(saved);
    await state.locator('#state-upload button').click();
    await state.locator('.note', { hasText: 'Restored snapshot.json' }).waitFor();
    await picker.waitFor({ state: 'detached' });
    // The rows and the clock are the snapshot's; the id stream stays past the workspace
    // made after it, never back (D-1170).
    const restored = (await control.get('/_emulator/state')).body;
    expect({ ...restored, ids: undefined }).toEqual({ ...expected, ids: undefined });
    expect(BigInt(restored.ids.random)).toBeGreaterThan(BigInt(expected.ids.random));

    // A file that is not a snapshot: the emulator's refusal as it answered it.
    const bad = join(SHOTS, 'not-a-snapshot.json');
    writeFileSync(bad, JSON.stringify({ format: 'something-else', version: 1 }));
    await state.locator('[name="file"]').setInputFiles(bad);
    await state.locator('#state-upload button').click();
    await state
      .locator('.problem code', { hasText: /^svc\./ })
      .first()
      .waitFor();
    expect(await state.locator('.problem').textContent()).toMatch(/^4\d\d /);
    // Refused: nothing moved since the restore.
    expect((await control.get('/_emulator/state')).body).toEqual(restored);
    await shot(page, 'state-refused');

    await control.post('/_emulator/workspaces/keyless', { name: 'Gone at reset' });
    const gone = page.locator('#workspace-picker option', { hasText: 'Gone at reset' });
    await gone.waitFor({ state: 'attached' });
    await state.locator('#state-reset').click();
    await state.locator('#state-reset').click();
    await state.locator('.note', { hasText: 'back to the loaded fixtures' }).waitFor();
    await gone.waitFor({ state: 'detached' });
    expect((await control.get('/_emulator/workspaces')).body.data.map((w: { id: string }) => w.id)).toEqual([demoId]);
    await finish('state', [/^\/_emulator\/state$/]);
  });
});

describe('the emulator UI: long lists', () => {
  it('shows the newest 100 sources, and a hundred more on "Show more" until none is left', async () => {
    const made = await emulator.createWorkspace({});
    secrets.push(made.apiKey.secret);
    expect((await control.patch(`/_emulator/workspaces/${made.workspaceId}`, { rateLimit: { limit: 1000 }, dailyActivityCap: null })).status).toBe(200);
    const api = client(server.url, made.apiKey.secret);
    for (let i = 0; i < 101; i++) expect((await api.post('/v1/knowledge/text', { title: `Note ${i}`, text: `Note number ${i}.` })).status).toBe(202);
    const { page, finish } = await open(`/_emulator/ui/knowledge?workspace=${made.workspaceId}`);
    const knowledge = section(page, 'knowledge');
    const count = knowledge.locator('[data-count="sources"]');
    await knowledge.locator('[data-count="sources"]', { hasText: '(100+)' }).waitFor();
    expect(await knowledge.locator('[data-rows="sources"] tr[data-id]').count()).toBe(100);
    // The oldest is not among them yet.
    expect(await knowledge.locator('[data-rows="sources"] tr', { hasText: 'Note 0' }).count()).toBe(0);
    await knowledge.getByRole('button', { name: 'Show 100 more sources' }).click();
    await knowledge.locator('[data-count="sources"]', { hasText: '(101)' }).waitFor();
    expect(await count.textContent()).toBe('(101)');
    expect(await knowledge.locator('[data-rows="sources"] tr[data-id]').count()).toBe(101);
    await knowledge.locator('[data-rows="sources"] tr', { hasText: /^Note 0/ }).waitFor();
    expect(await knowledge.locator('button[data-more]').count()).toBe(0);
    await emulator.drain();
    await finish('knowledge-more');
  });
});

describe('the emulator UI with an admin token', () => {
  it('asks for the token once, refuses a wrong one, sends it only to the control plane and console routes, and keeps it for the tab', async () => {
    const guarded = await createEmulator({ fixtures: 'demo', seed: 6, adminToken: 'ui-token-123', log: () => {} });
    const listening = await guarded.listen({ port: 0 });
    const tokenSecrets = [...guarded.fixtureKeys.map((k) => k.secret), 'ui-token-123'];
    try {
      const { page, finish } = await openUi(browser, guarded, listening.url, '/_emulator/ui', tokenSecrets);
      const sent: { url: string; authorization: string | undefined }[] = [];
      page.on('request', (r) => sent.push({ url: r.url(), authorization: r.headers().authorization }));
      const dialog = page.locator('#token-dialog');
      await dialog.locator('[name="token"]').waitFor();
      expect(await page.locator('[data-rows="workspaces"] tr[data-id]').count()).toBe(0);
      await dialog.locator('[name="token"]').fill('wrong-token');
      await dialog.locator('button[type="submit"]').click();
      await dialog.locator('#token-problem', { hasText: 'refused' }).waitFor();
      await dialog.locator('[name="token"]').fill('ui-token-123');
      await dialog.locator('button[type="submit"]').click();
      await page.locator('[data-rows="workspaces"] button', { hasText: 'Demo workspace' }).waitFor();
      expect(await dialog.isVisible()).toBe(false);

      // A reload keeps the token for this tab: no dialog again. Console routes get it too.
      await page.reload();
      await page.locator('[data-rows="workspaces"] button', { hasText: 'Demo workspace' }).waitFor();
      expect(await dialog.isVisible()).toBe(false);
      await page.locator('#connection[data-state="live"]').waitFor();
      const revoke = page.locator('[data-rows="keys"] tr', { hasText: 'demo-read-only' }).locator('button[data-revoke]');
      await revoke.click();
      await revoke.click();
      await page.locator('#workspaces .note', { hasText: 'Revoked demo-read-only' }).waitFor();

      expect(sent.some((r) => r.url.includes('ui-token-123'))).toBe(false);
      const data = sent.filter((r) => /^\/(_emulator|workspaces)\//.test(new URL(r.url).pathname) && !new URL(r.url).pathname.startsWith('/_emulator/ui'));
      expect(data.length).toBeGreaterThan(5);
      expect(data.filter((r) => r.authorization === 'Bearer ui-token-123').length).toBeGreaterThan(5);
      expect(data.some((r) => new URL(r.url).pathname.startsWith('/workspaces/') && r.authorization === 'Bearer ui-token-123')).toBe(true);
      expect(data.every((r) => r.authorization === undefined || r.authorization.startsWith('Bearer '))).toBe(true);
      const files = sent.filter((r) => new URL(r.url).pathname.startsWith('/_emulator/ui'));
      expect(files.every((r) => r.authorization === undefined)).toBe(true);
      await finish('admin-token', [/^\/_emulator\/(clock|requests|queue|faults|workspaces)/]);
    } finally {
      await guarded.close();
    }
  });
});
