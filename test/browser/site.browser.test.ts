import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createEmulator, type Emulator, type ListeningServer } from '../../emulator/emulator.js';

let emulator: Emulator;
let server: ListeningServer;
let browser: Browser;

/**
 * Every CSP violation the page reports: the `securitypolicyviolation` events (listened
 * to by an init script, which the CSP does not govern) and Chromium's console lines.
 */
async function watchPolicy(page: Page): Promise<() => Promise<string[]>> {
  const logged: string[] = [];
  page.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) logged.push(msg.text());
  });
  page.on('pageerror', (error) => logged.push(`page error: ${error.message}`));
  await page.addInitScript(() => {
    const w = globalThis as unknown as { __violations: string[]; document: { addEventListener(t: string, f: (e: { violatedDirective: string; blockedURI: string }) => void): void } };
    w.__violations = [];
    w.document.addEventListener('securitypolicyviolation', (e) => w.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return async () => [...(await page.evaluate(() => (globalThis as unknown as { __violations: string[] }).__violations)), ...logged];
}

beforeAll(async () => {
  // One question per visitor and minute: the second one shows the page's polite notice.
  emulator = await createEmulator({ fixtures: 'demo', seed: 1, siteChat: { visitorTurns: 1 } });
  server = await emulator.listen({ port: 0 });
  // Debian's Chromium, never a downloaded browser; background networking off (the
  // machine has no network beyond loopback).
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

afterAll(async () => {
  await browser?.close();
  await emulator?.close();
});

describe('the demo site in a real browser', () => {
  it('applies the theme, then chats with the page agent and shows the streamed reply', async () => {
    const page = await browser.newPage();
    const violations = await watchPolicy(page);
    const site = `http://cafe-aurora.localhost:${server.port}`;
    const res = await page.goto(`${site}/?lang=en`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(await page.title()).toBe('Café Aurora · Specialty roasters');
    // The theme's primary colour (#7a4a2b) reaches the rendered button.
    const button = page.locator('.chat button');
    expect(await button.evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor)).toBe('rgb(122, 74, 43)');
    expect(await page.locator('header .brand img').getAttribute('src')).toContain('/files/');
    expect(await page.locator('header nav a').allTextContents()).toEqual(['Home', 'Menu', 'About us']);

    const streamed = page.waitForResponse((r) => r.url().includes('/_site/chat/'));
    await page.locator('.chat input').fill('How long does shipping to Portugal take?');
    await button.click();
    const stream = await streamed;
    expect(stream.headers()['content-type']).toContain('text/event-stream');
    const reply = page.locator('.chat-log .agent[data-done="true"]');
    await reply.waitFor({ timeout: 15_000 });
    expect(await reply.textContent()).toMatch(/3 to 5 working days/);
    expect(await page.locator('.chat-log .user').textContent()).toBe('How long does shipping to Portugal take?');

    // A second question within the minute: the page says so politely, in its language.
    await page.locator('.chat input').fill('And to Spain?');
    await button.click();
    const notice = page.locator('.chat-log .agent[data-failed="notice"]');
    await notice.waitFor({ timeout: 15_000 });
    expect(await notice.textContent()).toBe('Too many questions in a short time. Please wait a moment and ask again.');
    expect(await button.isDisabled()).toBe(false);
    expect(await violations()).toEqual([]);

    // The watch sees a violation when there is one: an inline script is refused.
    await page.addScriptTag({ content: 'document.title = "inline ran"' }).catch(() => undefined);
    expect(await page.title()).toBe('Café Aurora · Specialty roasters');
    expect((await violations()).join('\n')).toMatch(/script-src/);
    await page.close();
  });

  it('renders the document pages with the brand footer', async () => {
    const page = await browser.newPage();
    const violations = await watchPolicy(page);
    await page.goto(`http://cafe-aurora.localhost:${server.port}/menu`);
    expect(await page.locator('main h1').textContent()).toBe('Carta');
    expect(await page.locator('footer').textContent()).toContain('Tostadores en Valencia');
    expect(await violations()).toEqual([]);
    await page.close();
  });
});
