import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { createEmulator, type Emulator, type ListeningServer } from '../../emulator/emulator.js';

let emulator: Emulator;
let server: ListeningServer;
let browser: Browser;

beforeAll(async () => {
  emulator = await createEmulator({ fixtures: 'demo', seed: 1 });
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
    const site = `http://cafe-aurora.localhost:${server.port}`;
    const res = await page.goto(`${site}/?lang=en`);
    expect(res?.status()).toBe(200);
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
    await page.close();
  });

  it('renders the document pages with the brand footer', async () => {
    const page = await browser.newPage();
    await page.goto(`http://cafe-aurora.localhost:${server.port}/menu`);
    expect(await page.locator('main h1').textContent()).toBe('Carta');
    expect(await page.locator('footer').textContent()).toContain('Tostadores en Valencia');
    await page.close();
  });
});
