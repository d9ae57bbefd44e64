import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createEmulator, type Emulator, type ListeningServer } from '../../emulator/emulator.js';
import { client, type Client } from '../support/client.js';
import { quiet } from '../support/emulator.js';
import { expectProblem, launch, openUi, shot } from './ui-support.js';

// Each test walks the UI through many one-second polls in a real browser: on a busy
// 2-core machine that takes longer than the suite's default.
vi.setConfig({ testTimeout: 120_000 });

let emulator: Emulator;
let server: ListeningServer;
let browser: Browser;
let control: Client;
let demoId: string;
const secrets: string[] = [];

const open = (path?: string) => openUi(browser, emulator, server.url, path, secrets);
const section = (page: Page, id: string) => page.locator(`section#${id}`);
const SHIPPING = /24 to 48 hours/;

beforeAll(async () => {
  emulator = await createEmulator({ fixtures: 'demo', seed: 7, log: quiet });
  server = await emulator.listen({ port: 0 });
  control = client(server.url);
  secrets.push(...emulator.fixtureKeys.map((k) => k.secret));
  demoId = emulator.fixtureKeys[0]!.workspaceId;
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  await emulator?.close();
});

/** Sends one message in the chat and waits for the turn to end (a reply, or a refusal). */
async function say(page: Page, message: string): Promise<void> {
  const chat = page.locator('#chat');
  const before = await chat.locator('.chat-log .agent').count();
  await chat.locator('[name="message"]').fill(message);
  await chat.locator('#chat-form button[type="submit"]').click();
  await chat
    .locator(`.chat-log .agent:nth-child(${2 * before + 2})[data-done="true"], .chat-log .agent:nth-child(${2 * before + 2})[data-failed="true"]`)
    .waitFor();
}

describe('the emulator UI: agents and chat through /v1', () => {
  it('answers the README’s question with the site’s agent and the demo key; the turn shows in Requests; credits agree everywhere', async () => {
    const { page, finish } = await open('/_emulator/ui/agents');
    const chat = page.locator('#chat');
    const aurora = (await control.get(`/_emulator/workspaces/${demoId}/resources`)).body.agents.data.find((a: { name: string }) => a.name === 'Aurora');
    // The agent of the published site comes first, and is chosen; so is the demo's full-access key.
    await section(page, 'agents').locator('[data-rows="agents"] tr[data-id]').first().waitFor();
    expect(await section(page, 'agents').locator('[data-rows="agents"] tr[data-id]').first().getAttribute('data-id')).toBe(aurora.id);
    expect(await chat.locator('#chat-agent option').first().textContent()).toContain('Aurora');
    expect(await chat.locator('#chat-agent').inputValue()).toBe(aurora.id);
    await chat.locator('#chat-key option', { hasText: 'demo-full' }).waitFor({ state: 'attached' });
    expect(await chat.locator('#chat-key option:checked').textContent()).toContain('printed at start-up');
    expect(await chat.locator('#chat-key option', { hasText: 'demo-read-only' }).count()).toBe(0);

    const streamed = page.waitForResponse((r) => r.url().endsWith('/chat'));
    await say(page, 'How long does shipping take?');
    const res = await streamed;
    expect(new URL(res.url()).pathname).toBe(`/v1/agents/${aurora.id}/chat`);
    expect(res.headers()['content-type']).toContain('text/event-stream');
    expect(await chat.locator('.chat-log .agent').last().textContent()).toMatch(SHIPPING);
    expect(await chat.locator('.chat-log .user').textContent()).toBe('How long does shipping take?');
    await shot(page, 'chat');

    // The turn is a /v1 request like any other: in Requests, with the key's prefix; one credit spent.
    await page.locator('nav.side a[data-nav="requests"]').click();
    const turn = section(page, 'requests').locator('[data-rows="journal"] tr', { hasText: `/v1/agents/${aurora.id}/chat` });
    await turn.waitFor();
    expect(await turn.textContent()).toContain('svc_test_Dem…');
    // The status sits under the Status header, not under Code.
    const header = await section(page, 'requests')
      .locator('th', { hasText: /^Status$/ })
      .boundingBox();
    const status = await turn.locator('.status').boundingBox();
    expect(status!.x).toBeGreaterThanOrEqual(header!.x - 1);
    expect(status!.x + status!.width).toBeLessThanOrEqual(header!.x + header!.width + 1);
    expect(await turn.locator('.status').textContent()).toBe('200');
    await shot(page, 'requests');
    await page.locator('nav.side a[data-nav="workspaces"]').click();
    await section(page, 'workspaces').locator(`[data-rows="workspaces"] tr[data-id="${demoId}"]`, { hasText: '999 of 1000 left' }).waitFor();
    expect(await page.locator('#resources-credits').textContent()).toContain('999 of 1000 left');
    await finish('chat-demo');
  });

  it('a fault on /v1/agents/** reaches the chat: its problem shows, and the refusal is in Requests', async () => {
    const { page, finish } = await open('/_emulator/ui/faults');
    const faults = section(page, 'faults');
    await faults.locator('[name="path"]').fill('/v1/agents/**');
    await faults.locator('[name="status"]').fill('503');
    await faults.locator('#fault-add [name="times"]').fill('1');
    await faults.locator('#fault-add button').click();
    await faults.locator('.note', { hasText: 'any method /v1/agents/** answers 503 svc.service.unavailable, 1 time' }).waitFor();

    await page.locator('nav.side a[data-nav="agents"]').click();
    const chat = page.locator('#chat');
    await chat.locator('#chat-key option', { hasText: 'demo-full' }).waitFor({ state: 'attached' });
    await say(page, 'How long does shipping take?');
    await expectProblem(page, '#chat', 'svc.service.unavailable');
    expect(await chat.locator('.problem').textContent()).toMatch(/^503 /);
    expect(await chat.locator('.chat-log .agent').last().getAttribute('data-failed')).toBe('true');
    await shot(page, 'chat-fault');
    // The fault is spent: the next turn answers.
    await say(page, 'How long does shipping take?');
    expect(await chat.locator('.chat-log .agent').last().textContent()).toMatch(SHIPPING);
    expect(await chat.locator('.problem').isHidden()).toBe(true);

    await page.locator('nav.side a[data-nav="requests"]').click();
    await section(page, 'requests').locator('#journal-refused').check();
    const refused = section(page, 'requests').locator('[data-rows="journal"] tr.refused', { hasText: 'svc.service.unavailable' });
    await refused.waitFor();
    expect(await section(page, 'requests').locator('[data-rows="journal"] tr:not(.refused):not(.empty)').count()).toBe(0);
    await finish('chat-fault', [/^\/v1\/agents\/[^/]+\/chat$/]);
  });

  it('keys for the chat: a mint at the two-key limit shows its problem; a minted key chats until revoked; a pasted key is checked', async () => {
    const { page, finish } = await open(`/_emulator/ui/agents?workspace=${demoId}`);
    const chat = page.locator('#chat');
    await chat.locator('#chat-key option', { hasText: 'demo-full' }).waitFor({ state: 'attached' });
    await chat.locator('#chat-mint').click();
    await expectProblem(page, '#chat', 'svc.api_key.limit_reached');

    // A pasted key: refused when it cannot chat or is another workspace's; kept when it can.
    const readOnly = emulator.fixtureKeys.find((k) => k.name === 'demo-read-only')!.secret;
    await chat.locator('#chat-paste-open').click();
    await chat.locator('#chat-paste [name="secret"]').fill(readOnly);
    await chat.locator('#chat-paste button[type="submit"]').click();
    await chat.locator('.problem', { hasText: 'That key cannot chat' }).waitFor();
    expect(await chat.locator('#chat-paste [name="secret"]').getAttribute('aria-invalid')).toBe('true');
    const other = (await control.post('/_emulator/workspaces', { name: 'Other' })).body;
    secrets.push(other.apiKey.secret);
    await chat.locator('#chat-paste [name="secret"]').fill(other.apiKey.secret);
    await chat.locator('#chat-paste button[type="submit"]').click();
    await chat.locator('.problem', { hasText: 'A key of another workspace' }).waitFor();
    await chat.locator('#chat-paste [name="secret"]').fill('svc_test_nope');
    await chat.locator('#chat-paste button[type="submit"]').click();
    await expectProblem(page, '#chat', 'svc.api_key.invalid');
    await chat.locator('#chat-paste-cancel').click();

    // Room for a key (the read-only one revoked): the chat mints its own, chat:write only.
    const readOnlyId = (await control.get(`/workspaces/${demoId}/keys`)).body.data.find((k: { name: string }) => k.name === 'demo-read-only').id;
    await control.delete(`/workspaces/${demoId}/keys/${readOnlyId}`);
    await chat.locator('#chat-mint').click();
    await chat.locator('.note', { hasText: 'Minted emulator-ui-chat' }).waitFor();
    const option = chat.locator('#chat-key option:checked');
    expect(await option.textContent()).toContain('minted in this tab');
    const prefix = await chat.locator('#chat-key').inputValue();
    await say(page, 'How long does shipping take?');
    expect(await chat.locator('.chat-log .agent').last().textContent()).toMatch(SHIPPING);
    const journal = (await control.get('/_emulator/requests?limit=5')).body.data;
    expect(journal.find((e: { path: string }) => e.path.endsWith('/chat')).keyPrefix).toBe(prefix);
    // Kept over a reload (this tab), never shown.
    await page.reload();
    await chat.locator(`#chat-key option[value="${prefix}"]`).waitFor({ state: 'attached' });

    // Revoked elsewhere: the tab stops offering it, and falls back to the fixtures' key.
    const minted = (await control.get(`/workspaces/${demoId}/keys`)).body.data.find((k: { prefix: string }) => k.prefix === prefix);
    await control.delete(`/workspaces/${demoId}/keys/${minted.id}`);
    await chat.locator(`#chat-key option[value="${prefix}"]`).waitFor({ state: 'detached' });
    expect(await chat.locator('#chat-key option:checked').textContent()).toContain('demo-full');
    expect(await page.evaluate(() => (globalThis as unknown as { sessionStorage: { length: number } }).sessionStorage.length)).toBe(0);
    await control.post('/_emulator/reset');
    await finish('chat-keys', [/^\/workspaces\/[^/]+\/keys$/, /^\/v1\/(me|agents\/[^/]+\/chat)$/]);
  });
});

describe('the emulator UI: sites and knowledge', () => {
  it('shows each page’s real title (the browser tab’s), the heading beside it, and links to the live site', async () => {
    const { page, finish } = await open(`/_emulator/ui/sites?workspace=${demoId}`);
    const sites = section(page, 'sites');
    const home = sites.locator('[data-rows="pages"] tr', { has: page.locator(`td:first-child a[href$=".localhost:${server.port}/"]`) });
    await home.waitFor();
    const title = await home.locator('td[data-title]').textContent();
    // What the browser tab shows for that page.
    const tab = await page.context().newPage();
    await tab.goto(`http://cafe-aurora.localhost:${server.port}/`);
    expect(await tab.title()).toBe(title);
    await tab.close();
    expect(title).not.toBe('Pregunta a');
    expect(await home.textContent()).toContain('Pregunta a Aurora');
    await sites.locator('[data-rows="projects"] a', { hasText: `http://cafe-aurora.localhost:${server.port}/` }).waitFor();

    await page.locator('nav.side a[data-nav="knowledge"]').click();
    const sources = section(page, 'knowledge').locator('[data-rows="sources"] tr[data-id]');
    await sources.first().waitFor();
    expect(await section(page, 'knowledge').locator('[data-status="ready"]').count()).toBe(await sources.count());
    await shot(page, 'knowledge');
    await finish('sites');
  });
});

describe('the emulator UI: what polls must not undo (D-1181)', () => {
  it('a workspace with an image keeps a half-confirmed Revoke; a key past its expiry says so; after a reset the chat starts anew', async () => {
    // A second key that expires; the emulated clock then passes its expiry.
    const made = await emulator.createWorkspace({ name: 'Image workspace' });
    const now = Date.parse((await control.get('/_emulator/clock')).body.now);
    const soon = (
      await control.post(`/workspaces/${made.workspaceId}/keys`, { name: 'soon', scopes: ['chat:write'], expiresAt: new Date(now + 30 * 60_000).toISOString() })
    ).body;
    secrets.push(made.apiKey.secret, soon.secret);
    const { page, finish } = await open(`/_emulator/ui/workspaces?workspace=${made.workspaceId}`);
    const ws = section(page, 'workspaces');
    const row = ws.locator('[data-rows="keys"] tr', { hasText: `${soon.prefix}…` });
    await row.locator('[data-status="active"]').waitFor();
    expect(await ws.locator('[data-count="keys"]').textContent()).toBe('(2 active of 2)');
    // Nothing else changes: the row says so without a reload all the same.
    await control.post('/_emulator/clock', { advanceMs: 60 * 60_000 });
    await row.locator('[data-status="expired"]').waitFor();
    expect(await ws.locator('[data-count="keys"]').textContent()).toBe('(1 active of 2)');

    // An image: its URL is signed again on every answer, each time the clock moves.
    const image = new FormData();
    image.set('file', new File([readFileSync(new URL('../fixtures/assets/image.png', import.meta.url))], 'image.png'));
    expect((await client(server.url, made.apiKey.secret).post('/v1/assets', image)).status).toBe(201);
    const other = ws.locator('[data-rows="keys"] tr', { hasText: `${made.apiKey.prefix}…` });
    await page.locator('img[src*="/files/ast_"]').first().waitFor({ state: 'attached' });
    await other.locator('button[data-revoke]').click();
    for (let i = 0; i < 2; i++) {
      await control.post('/_emulator/clock', { advanceMs: 1_000 });
      await page.waitForTimeout(1_200);
    }
    // Still armed after two polls that saw new URLs: the second click revokes.
    expect(await other.locator('button[data-revoke]').textContent()).toContain('click again');
    await other.locator('button[data-revoke]').click();
    await other.locator('[data-status="revoked"]').waitFor();

    // The chat after a reset: the UI's own starts a new conversation; one done elsewhere says so once.
    await page.goto(`${server.url}/_emulator/ui/agents?workspace=${demoId}`);
    await page.locator('#chat-key option', { hasText: 'demo-full' }).waitFor({ state: 'attached' });
    await say(page, 'How long does shipping take?');
    await page.locator('nav.side a[data-nav="state"]').click();
    await page.locator('#state-reset').click();
    await page.locator('#state-reset').click();
    await section(page, 'state').locator('.note', { hasText: 'Reset' }).waitFor();
    await page.locator('nav.side a[data-nav="agents"]').click();
    await page.locator('#chat-key option', { hasText: 'demo-full' }).waitFor({ state: 'attached' });
    await say(page, 'How long does shipping take?');
    expect(await page.locator('#chat .chat-log .agent').last().textContent()).toMatch(SHIPPING);
    await control.post('/_emulator/reset');
    await say(page, 'How long does shipping take?');
    await page.locator('#chat .problem', { hasText: 'no longer exists' }).waitFor();
    await say(page, 'How long does shipping take?');
    expect(await page.locator('#chat .chat-log .agent').last().textContent()).toMatch(SHIPPING);
    await finish('ui-polls', [/^\/v1\/agents\/[^/]+\/chat$/]);
  });
});
