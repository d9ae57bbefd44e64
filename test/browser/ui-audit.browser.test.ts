import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createEmulator, type Emulator, type ListeningServer } from '../../emulator/emulator.js';
import { client, send, type Client } from '../support/client.js';
import { quiet } from '../support/emulator.js';
import { SHOTS, expectProblem, launch, openUi } from './ui-support.js';

// What a black-box audit of the UI found (D-1183 to D-1188): links that forget the
// workspace, a workspace not found replaced in silence, keys kept for a deleted
// workspace, the token button lost on reload, restore errors without their rows, codes
// that do not link, assets with nothing to open, buttons named alike.
vi.setConfig({ testTimeout: 120_000 });

let emulator: Emulator;
let server: ListeningServer;
let browser: Browser;
let control: Client;
let demo: Client;
let demoId: string;
const secrets: string[] = [];

const open = (path?: string) => openUi(browser, emulator, server.url, path, secrets);
const section = (page: Page, id: string) => page.locator(`section#${id}`);
const HELD = 'svc-emulator-ui-keys';
/** The workspaces this tab holds chat keys for (sessionStorage). */
const heldFor = (page: Page) =>
  page.evaluate(
    (store) =>
      Object.keys(JSON.parse((globalThis as unknown as { sessionStorage: { getItem(k: string): string | null } }).sessionStorage.getItem(store) ?? '{}')),
    HELD,
  );

beforeAll(async () => {
  emulator = await createEmulator({ fixtures: 'demo', seed: 11, log: quiet });
  server = await emulator.listen({ port: 0 });
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

describe('the emulator UI: links and workspaces (D-1183, D-1184)', () => {
  it('every section link carries the chosen workspace: a Ctrl-click opens that section on that workspace', async () => {
    const made = (await control.post('/_emulator/workspaces/keyless', { name: 'Linked workspace' })).body;
    const { page, finish } = await open(`/_emulator/ui/knowledge?workspace=${made.id}`);
    await section(page, 'knowledge').locator('[data-ws-name]', { hasText: 'Linked workspace' }).waitFor();
    const hrefs = await page.locator('a[data-nav]').evaluateAll((links) => links.map((a) => [a.getAttribute('data-nav'), a.getAttribute('href')]));
    expect(hrefs.length).toBeGreaterThan(12);
    for (const [nav, href] of hrefs) expect(href).toBe(`/_emulator/ui/${nav}?workspace=${made.id}`);

    // A new tab from the sidebar, and from a link in the text: the same workspace.
    const [tab] = await Promise.all([page.context().waitForEvent('page'), page.locator('nav.side a[data-nav="sites"]').click({ modifiers: ['Control'] })]);
    await tab.waitForLoadState();
    expect(new URL(tab.url()).searchParams.get('workspace')).toBe(made.id);
    await section(tab, 'sites').locator('[data-ws-name]', { hasText: 'Linked workspace' }).waitFor();
    await tab.close();
    const [faults] = await Promise.all([
      page.context().waitForEvent('page'),
      section(page, 'knowledge')
        .locator('a[data-nav="faults"]')
        .click({ modifiers: ['Control'] }),
    ]);
    await faults.waitForLoadState();
    expect(new URL(faults.url()).searchParams.get('workspace')).toBe(made.id);
    await faults.close();
    // The page itself did not move.
    expect(new URL(page.url()).pathname).toBe('/_emulator/ui/knowledge');

    // Another workspace chosen: every link follows.
    await page.locator('#workspace-picker').selectOption(demoId);
    await page.waitForURL(`**/knowledge?workspace=${demoId}`);
    expect(await page.locator('nav.side a[data-nav="agents"]').getAttribute('href')).toBe(`/_emulator/ui/agents?workspace=${demoId}`);
    expect(await page.locator('#clock-badge').getAttribute('href')).toBe(`/_emulator/ui/clock?workspace=${demoId}`);
    await control.delete(`/_emulator/workspaces/${made.id}`);
    await finish('links-carry-workspace');
  });

  it('a workspace not found says so and shows the first; one deleted elsewhere too, and its held keys are dropped', async () => {
    const { page, finish } = await open('/_emulator/ui/knowledge?workspace=ws_doesnotexist');
    await page.waitForURL(`**/knowledge?workspace=${demoId}`);
    const lost = page.locator('#workspace-lost');
    await lost.waitFor();
    expect(await lost.textContent()).toContain('ws_doesnotexist was not found');
    expect(await lost.textContent()).toContain(`Showing Demo workspace (${demoId})`);
    // The user's next move clears it.
    await page.locator('nav.side a[data-nav="sites"]').click();
    await lost.waitFor({ state: 'hidden' });

    // A workspace open here and deleted elsewhere: said so, and the key this tab held for it is dropped.
    const made = (await control.post('/_emulator/workspaces', { name: 'Doomed workspace' })).body;
    secrets.push(made.apiKey.secret);
    await page.goto(`${server.url}/_emulator/ui/agents?workspace=${made.workspaceId}`);
    const chat = page.locator('#chat');
    await chat.locator('#chat-key option', { hasText: 'no key' }).waitFor({ state: 'attached' });
    await chat.locator('#chat-paste-open').click();
    await chat.locator('#chat-paste [name="secret"]').fill(made.apiKey.secret);
    await chat.locator('#chat-paste button[type="submit"]').click();
    await chat.locator('.note', { hasText: 'This tab will chat with' }).waitFor();
    expect(await heldFor(page)).toEqual([made.workspaceId]);
    await control.delete(`/_emulator/workspaces/${made.workspaceId}`);
    await page.waitForURL(`**/agents?workspace=${demoId}`);
    await lost.locator(`text=${made.workspaceId} was not found`).waitFor();
    expect(await heldFor(page)).toEqual([]);

    // Deleted by the page itself: its card says so (no "not found"), and its held key goes too.
    await page.locator('nav.side a[data-nav="workspaces"]').click();
    await page.locator('#workspace-create [name="name"]').fill('Deleted here');
    await page.locator('#workspace-create button[type="submit"]').click();
    await page.locator('#detail-name', { hasText: 'Deleted here' }).waitFor();
    const here = new URL(page.url()).searchParams.get('workspace')!;
    secrets.push(await page.locator('#secret-value').inputValue());
    expect(await heldFor(page)).toEqual([here]);
    await page.locator('#workspace-delete').click();
    await page.locator('#workspace-delete').click();
    await page.locator('#workspace-detail .note', { hasText: `Deleted ${here}` }).waitFor();
    await page.waitForURL(`**/workspaces?workspace=${demoId}`);
    expect(await heldFor(page)).toEqual([]);
    expect(await lost.isHidden()).toBe(true);
    await finish('workspace-not-found', [/^\/_emulator\/workspaces\/[^/]+\/resources$/]);
  });
});

describe('the emulator UI: refusals and records (D-1186, D-1187)', () => {
  it('a refused restore names each row; problem and journal codes link to their reference page', async () => {
    const { page, finish } = await open('/_emulator/ui/state');
    const state = section(page, 'state');
    const snapshot = (await control.get('/_emulator/state')).body;
    const keyRow = snapshot.tables.api_keys[0];
    snapshot.tables.api_keys[0] = { ...keyRow, scopes: 'nope' };
    mkdirSync(SHOTS, { recursive: true });
    const bad = join(SHOTS, 'bad-row.json');
    writeFileSync(bad, JSON.stringify(snapshot));
    await state.locator('[name="file"]').setInputFiles(bad);
    await state.locator('#state-upload button').click();
    await expectProblem(page, '#state', 'svc.request.validation_failed', 'tables.api_keys.0.scopes');
    const item = state.locator('.problem li', { hasText: 'tables.api_keys.0.scopes' });
    expect(await item.locator('[data-row]').textContent()).toBe(keyRow.id);
    expect(await item.textContent()).toContain(`(row ${keyRow.id}): must be JSON text`);
    const code = state.locator('.problem .problem-title a', { hasText: 'svc.request.validation_failed' });
    expect(await code.getAttribute('href')).toBe('/docs/errors/svc.request.validation_failed');
    expect((await control.get('/docs/errors/svc.request.validation_failed')).status).toBe(200);

    // A refused /v1 call: its code in Requests links too.
    expect((await demo.get('/v1/agents/agt_nope')).status).toBeGreaterThanOrEqual(400);
    const entry = (await control.get('/_emulator/requests?limit=1')).body.data[0];
    await page.locator('nav.side a[data-nav="requests"]').click();
    const row = section(page, 'requests').locator(`[data-rows="journal"] tr[data-request="${entry.requestId}"]`);
    await row.waitFor();
    expect(await row.locator('a code').textContent()).toBe(entry.code);
    expect(await row.locator('a').getAttribute('href')).toBe(`/docs/errors/${entry.code}`);
    expect((await control.get(`/docs/errors/${entry.code}`)).status).toBe(200);
    await finish('refusal-rows-and-codes', [/^\/_emulator\/state$/]);
  });

  it('an asset shows its id and opens its file, still after the clock passes the first signature', async () => {
    const image = new FormData();
    image.set('file', new File([readFileSync(new URL('../fixtures/assets/image.png', import.meta.url))], 'image.png'));
    const asset = (await demo.post('/v1/assets', image)).body;
    expect(asset.id).toMatch(/^ast_/);
    const { page, finish } = await open(`/_emulator/ui/sites?workspace=${demoId}`);
    const row = section(page, 'sites').locator(`[data-rows="assets"] tr[data-id="${asset.id}"]`);
    await row.waitFor();
    expect(await row.locator('code', { hasText: asset.id }).count()).toBe(1);
    const link = row.getByRole('link', { name: `Open ${asset.key || asset.id}` });
    const first = (await link.getAttribute('href'))!;
    expect(first).toMatch(new RegExp(`^${server.url}/files/${asset.id}\\?expires=`));
    const opened = await page.context().request.get(first);
    expect(opened.status()).toBe(200);
    expect(opened.headers()['content-type']).toBe('image/png');
    // The first signature expires on the emulated clock: the link follows the new one.
    await control.post('/_emulator/clock', { advanceMs: 60 * 60_000 });
    await page.waitForFunction(
      ([id, before]) =>
        (globalThis as unknown as { document: { querySelector(s: string): { getAttribute(n: string): string } | null } }).document
          .querySelector(`a[data-file="${id}"]`)
          ?.getAttribute('href') !== before,
      [asset.id, first] as const,
    );
    expect((await page.context().request.get(first)).status()).toBeGreaterThanOrEqual(400);
    expect((await page.context().request.get((await link.getAttribute('href'))!)).status()).toBe(200);
    await demo.delete(`/v1/assets/${asset.id}`);
    await finish('asset-open');
  });
});

describe('the emulator UI: names and fields (D-1188)', () => {
  it('each Revoke and Chat button names its row; a refused pasted key marks its field', async () => {
    const { page, finish } = await open(`/_emulator/ui/workspaces?workspace=${demoId}`);
    const keys = (await control.get(`/workspaces/${demoId}/keys`)).body.data as { name: string; prefix: string }[];
    await section(page, 'workspaces').locator('[data-rows="keys"] button[data-revoke]').first().waitFor();
    for (const k of keys) {
      const button = page.getByRole('button', { name: `Revoke ${k.name} (${k.prefix}…)`, exact: true });
      expect(await button.count()).toBe(1);
    }
    // Armed, its name says so too.
    const button = page.getByRole('button', { name: `Revoke ${keys[0]!.name} (${keys[0]!.prefix}…)`, exact: true });
    await button.click();
    await page.getByRole('button', { name: `Revoke ${keys[0]!.name} (${keys[0]!.prefix}…): click again to confirm` }).waitFor();

    await page.locator('nav.side a[data-nav="agents"]').click();
    const agents = (await control.get(`/_emulator/workspaces/${demoId}/resources`)).body.agents.data as { name: string }[];
    await section(page, 'agents').locator('[data-rows="agents"] button[data-chat]').first().waitFor();
    for (const a of agents) expect(await page.getByRole('button', { name: `Chat with ${a.name}`, exact: true }).count()).toBe(1);

    const chat = page.locator('#chat');
    await chat.locator('#chat-paste-open').click();
    await chat.locator('#chat-paste [name="secret"]').fill('svc_test_nope');
    await chat.locator('#chat-paste button[type="submit"]').click();
    await expectProblem(page, '#chat', 'svc.api_key.invalid');
    expect(await chat.locator('#chat-paste [name="secret"]').getAttribute('aria-invalid')).toBe('true');
    await finish('names-and-fields', [/^\/v1\/me$/]);
  });
});

describe('the emulator UI: faults one by one, requests told apart (D-1196, D-1197)', () => {
  it('each fault row has a Remove button naming its fault, which removes that one only', async () => {
    const agents = (await control.post('/_emulator/faults', { match: { method: 'GET', path: '/v1/agents/**' }, status: 503 })).body;
    const me = (await control.post('/_emulator/faults', { match: { path: '/v1/me' }, status: 500 })).body;
    const queued = (await control.post('/_emulator/faults', { ingest: 'fetch_timeout', times: 2 })).body;
    try {
      const { page, finish } = await open(`/_emulator/ui/faults?workspace=${demoId}`);
      const faults = section(page, 'faults');
      await faults.locator(`[data-rows="faults"] tr[data-id="${queued.id}"]`).waitFor();
      const remove = page.getByRole('button', { name: 'Remove fault on GET /v1/agents/** (503 svc.service.unavailable)', exact: true });
      expect(await remove.count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Remove fault on any method /v1/me (500 svc.internal.error)', exact: true }).count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Remove queued ingestion failures (fetch_timeout)', exact: true }).count()).toBe(1);
      await remove.click();
      await faults.locator('.note', { hasText: 'Removed the fault on GET /v1/agents/**' }).waitFor();
      await faults.locator(`[data-rows="faults"] tr[data-id="${agents.id}"]`).waitFor({ state: 'detached' });
      expect((await control.get('/_emulator/faults')).body.data.map((f: { id: string }) => f.id)).toEqual([me.id, queued.id]);
      await page.getByRole('button', { name: 'Remove queued ingestion failures (fetch_timeout)', exact: true }).click();
      await faults.locator(`[data-rows="faults"] tr[data-id="${queued.id}"]`).waitFor({ state: 'detached' });
      expect((await control.get('/_emulator/faults')).body.data.map((f: { id: string }) => f.id)).toEqual([me.id]);
      await finish('fault-remove');
    } finally {
      await control.delete('/_emulator/faults');
    }
  });

  it("the Requests rows show the workspace a console route names and a hosted site's host", async () => {
    const { page, finish } = await open(`/_emulator/ui/requests?workspace=${demoId}`);
    const keys = await control.get(`/workspaces/${demoId}/keys`);
    const menu = await send(emulator, 'GET', 'http://cafe-aurora.localhost/menu');
    const api = await demo.get('/v1/me');
    const row = (res: { headers: Headers }) => section(page, 'requests').locator(`tr[data-request="${res.headers.get('x-request-id')}"]`);
    await row(api).waitFor();
    expect(await row(keys).locator('td').nth(2).textContent()).toBe(`/workspaces/${demoId}/keys`);
    expect(await row(keys).locator('td').nth(6).textContent()).toBe('Demo workspace');
    expect(await row(menu).locator('td').nth(2).textContent()).toBe('cafe-aurora.localhost/menu');
    expect(await row(api).locator('td').nth(2).textContent()).toBe('/v1/me');
    // The path filter reads the host too.
    await page.locator('#journal-filter').fill('cafe-aurora.localhost');
    await row(api).waitFor({ state: 'detached' });
    expect(await row(menu).count()).toBe(1);
    await finish('requests-told-apart');
  });
});

describe('the emulator UI with an admin token (D-1185)', () => {
  it('offers the Admin token button after a reload while the tab holds the token', async () => {
    const guarded = await createEmulator({ fixtures: 'demo', seed: 12, adminToken: 'ui-token-456', log: quiet });
    const listening = await guarded.listen({ port: 0 });
    try {
      const { page, finish } = await openUi(browser, guarded, listening.url, '/_emulator/ui', [...guarded.fixtureKeys.map((k) => k.secret), 'ui-token-456']);
      const dialog = page.locator('#token-dialog');
      await dialog.locator('[name="token"]').fill('ui-token-456');
      await dialog.locator('button[type="submit"]').click();
      await page.locator('[data-rows="workspaces"] button', { hasText: 'Demo workspace' }).waitFor();
      await page.reload();
      await page.locator('[data-rows="workspaces"] button', { hasText: 'Demo workspace' }).waitFor();
      const button = page.getByRole('button', { name: 'Admin token' });
      expect(await button.isVisible()).toBe(true);
      await button.click();
      await dialog.locator('[name="token"]').fill('ui-token-456');
      await dialog.locator('button[type="submit"]').click();
      await page.locator('#connection[data-state="live"]').waitFor();
      expect(await dialog.isVisible()).toBe(false);
      await finish('admin-token-reload', [/^\/_emulator\//]);
    } finally {
      await guarded.close();
    }
  });
});
