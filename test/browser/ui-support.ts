import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Emulator } from '../../emulator/emulator.js';
import { packageRoot } from '../../emulator/package-info.js';

/** Where the UI's browser tests save their screenshots (gitignored). */
export const SHOTS = join(packageRoot(), 'test', 'browser', 'screenshots');
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** Anything shaped like a whole API key. */
export const FULL_KEY = /svc_(test|live)_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}/;
const allKeys = (text: string) => text.match(new RegExp(FULL_KEY.source, 'g')) ?? [];
/** A laptop screen: every section must fit it (its own scroll areas aside). */
export const LAPTOP = { width: 1366, height: 768 };

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}

/**
 * The answers that may hold a key secret: those that hand one out (a mint, a new
 * workspace with its key) and the fixtures' keys, which the CLI prints at start-up.
 */
function mayHoldSecret(method: string, url: string): boolean {
  const path = new URL(url).pathname;
  return (method === 'POST' && /^\/workspaces\/[^/]+\/keys$/.test(path))
    || (method === 'POST' && path === '/_emulator/workspaces')
    || (method === 'GET' && path === '/_emulator/fixture-keys');
}

export interface Watched {
  page: Page;
  /** Whole keys found in answers that hand keys out, by URL path. */
  handedOut(): Promise<{ path: string; keys: string[] }[]>;
  /**
   * Screenshot, then: no CSP violation, no page error, no console error but the
   * refusals the test caused, and no key secret (or its hash, or a stored hash) in
   * any answer but those that hand one out.
   */
  finish(name: string, refusals?: RegExp[]): Promise<void>;
}

interface Seen { method: string; url: string; text: string }

/** Key hashes in the store: no answer to the page may hold one. */
async function keyHashes(target: Emulator): Promise<string[]> {
  return (await target.service.db.selectFrom('api_keys').select('hash').execute()).map((r) => r.hash);
}

/** Opens the UI in a new page of `browser` and watches what it is sent and what it complains about. */
export async function openUi(browser: Browser, target: Emulator, url: string, path = '/_emulator/ui', secrets: string[] = []): Promise<Watched> {
  const context = await browser.newContext({ viewport: LAPTOP });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
  const page = await context.newPage();
  const complaints: { text: string; url: string }[] = [];
  const bodies: Promise<Seen>[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' || /Content Security Policy/i.test(msg.text())) complaints.push({ text: msg.text(), url: msg.location().url });
  });
  page.on('pageerror', (error) => complaints.push({ text: `page error: ${error.message}`, url: '' }));
  page.on('response', (res) => {
    if (!res.url().startsWith(url)) return;
    const method = res.request().method();
    bodies.push(res.body().then((b) => ({ method, url: res.url(), text: b.toString('utf8') }), () => ({ method, url: res.url(), text: '' })));
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
    async handedOut() {
      const answers = await Promise.all(bodies);
      return answers.filter((a) => mayHoldSecret(a.method, a.url)).map((a) => ({ path: new URL(a.url).pathname, keys: allKeys(a.text) }));
    },
    async finish(name, refusals = []) {
      await shot(page, name);
      expect(await page.evaluate(() => (globalThis as unknown as { __violations: string[] }).__violations)).toEqual([]);
      // A refused fetch is logged by Chromium as "Failed to load resource": only those the test caused may be there.
      const unexpected = complaints.filter((c) => !(c.text.startsWith('Failed to load resource') && refusals.some((r) => r.test(new URL(c.url).pathname))));
      expect(unexpected).toEqual([]);
      const answers = await Promise.all(bodies);
      expect(answers.length).toBeGreaterThan(3);
      const forbidden = [...secrets, ...secrets.map((s) => createHash('sha256').update(s).digest('hex')), ...(await keyHashes(target))];
      for (const answer of answers) {
        if (mayHoldSecret(answer.method, answer.url)) continue;
        expect(allKeys(answer.text), `${answer.method} ${answer.url} holds a key`).toEqual([]);
        for (const secret of forbidden) expect(answer.text.includes(secret), `${answer.method} ${answer.url} holds a key secret or hash`).toBe(false);
      }
      await context.close();
    },
  };
}

/** Saves a screenshot of what the screen shows now. */
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** Waits for the panel's problem box to show `code` (and the field, when given). */
export async function expectProblem(page: Page, panel: string, code: string, field?: string): Promise<void> {
  const box = page.locator(`${panel} .problem`);
  await box.locator('code', { hasText: code }).first().waitFor();
  if (field) await box.locator('li code', { hasText: field }).first().waitFor();
}

/** Whether the open section fits the window: the page itself never scrolls, nor does its main area. */
export async function fitsScreen(page: Page): Promise<{ page: boolean; main: boolean }> {
  return page.evaluate(() => {
    const d = (globalThis as unknown as { document: { documentElement: { scrollHeight: number; clientHeight: number; scrollWidth: number; clientWidth: number }; getElementById(id: string): { scrollHeight: number; clientHeight: number; scrollWidth: number; clientWidth: number } } }).document;
    const main = d.getElementById('main');
    return {
      page: d.documentElement.scrollHeight <= d.documentElement.clientHeight && d.documentElement.scrollWidth <= d.documentElement.clientWidth,
      main: main.scrollHeight <= main.clientHeight && main.scrollWidth <= main.clientWidth,
    };
  });
}
