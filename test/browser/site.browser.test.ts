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
    const w = globalThis as unknown as {
      __violations: string[];
      document: { addEventListener(t: string, f: (e: { violatedDirective: string; blockedURI: string }) => void): void };
    };
    w.__violations = [];
    w.document.addEventListener('securitypolicyviolation', (e) => w.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return async () => [...(await page.evaluate(() => (globalThis as unknown as { __violations: string[] }).__violations)), ...logged];
}

/** A CSS variable as the browser computed it on the document element. */
function rootVariable(page: Page, name: string): Promise<string> {
  return page.evaluate((n) => {
    const g = globalThis as unknown as { getComputedStyle(e: unknown): { getPropertyValue(p: string): string }; document: { documentElement: unknown } };
    return g.getComputedStyle(g.document.documentElement).getPropertyValue(n).trim();
  }, name);
}

/** The computed value of one property of the first element `selector` finds. */
function computed(page: Page, selector: string, property: string): Promise<string> {
  return page
    .locator(selector)
    .first()
    .evaluate((el, p) => (globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }).getComputedStyle(el)[p]!, property);
}

beforeAll(async () => {
  // One question per visitor and minute: the second one shows the page's polite notice.
  emulator = await createEmulator({ fixtures: 'demo', seed: 1, siteChat: { visitorTurns: 1 } });
  server = await emulator.listen({ port: 0 });
  // Debian's Chromium, never a downloaded browser; background networking off (the
  // machine has no network beyond loopback).
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
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
    // The theme's variables are in the page (CONTRACT, Public sites), inline under the CSP.
    expect(await rootVariable(page, '--color-primary')).toBe('#7a4a2b');
    expect(await rootVariable(page, '--radius')).toBe('0.5rem');
    // The theme's primary colour (#7a4a2b) reaches the rendered button.
    const button = page.locator('.chat button');
    expect(
      await button.evaluate(
        (el) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor,
      ),
    ).toBe('rgb(122, 74, 43)');
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

  it('shows a missing page as the themed 404 in the site language, and an unknown host as a neutral one, with no CSP violation', async () => {
    const page = await browser.newPage();
    const violations = await watchPolicy(page);
    const missing = await page.goto(`http://cafe-aurora.localhost:${server.port}/no-such-page`);
    expect(missing?.status()).toBe(404);
    expect(missing?.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(await page.title()).toBe('Página no encontrada · Café Aurora');
    expect(await rootVariable(page, '--color-primary')).toBe('#7a4a2b');
    // The site's stylesheet and the inline variables both applied: the link home is the theme's button.
    expect(await computed(page, 'a.home', 'backgroundColor')).toBe('rgb(122, 74, 43)');
    expect(await page.locator('header nav a').allTextContents()).toEqual(['Inicio', 'Carta', 'Nosotros']);
    await page.locator('a.home').click();
    await page.waitForURL(`http://cafe-aurora.localhost:${server.port}/`);
    expect(await page.title()).toBe('Café Aurora · Tostadores de especialidad');

    const nobody = await page.goto(`http://nobody-here.localhost:${server.port}/`);
    expect(nobody?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('No site here');
    expect(await computed(page, 'body', 'fontFamily')).toContain('system-ui');
    expect(await violations()).toEqual([]);
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
