import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { createEmulator, type Emulator, type ListeningServer } from '../../emulator/emulator.js';

let emulator: Emulator;
let server: ListeningServer;
let browser: Browser;
let attacker: Server;
let attackerPort: number;

// A page of another origin that tries what any web page can: simple no-cors POSTs.
const ATTACK_PAGE = `<!doctype html><script>
window.attack = async (target) => {
  for (const path of ['/_emulator/reset', '/_emulator/workspaces']) {
    await fetch(target + path, { method: 'POST', mode: 'no-cors', body: 'x' }).catch(() => {});
  }
  return 'sent';
};
</script>`;

beforeAll(async () => {
  emulator = await createEmulator({ fixtures: 'demo', seed: 2 });
  server = await emulator.listen({ port: 0 });
  attacker = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(ATTACK_PAGE));
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerPort = (attacker.address() as AddressInfo).port;
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
  await new Promise((resolve) => attacker?.close(resolve));
  await emulator?.close();
});

describe('the control plane in a real browser', () => {
  it('refuses simple POSTs from a cross-site page and from a same-site <name>.localhost page; state unchanged', async () => {
    const before = JSON.stringify(await emulator.exportState());
    const answered: { url: string; status: number }[] = [];
    for (const origin of [`http://127.0.0.1:${attackerPort}`, `http://evil.localhost:${attackerPort}`]) {
      const page = await browser.newPage();
      page.on('response', (r) => {
        if (r.url().includes('/_emulator/')) answered.push({ url: r.url(), status: r.status() });
      });
      await page.goto(`${origin}/`);
      expect(await page.evaluate(`window.attack('http://localhost:${server.port}')`)).toBe('sent');
      await page.close();
    }
    // The browser did send them (the page cannot read the answers; the network layer can).
    expect(answered.map((a) => new URL(a.url).pathname)).toEqual(['/_emulator/reset', '/_emulator/workspaces', '/_emulator/reset', '/_emulator/workspaces']);
    for (const a of answered) expect(a.status, a.url).toBe(403);
    expect(JSON.stringify(await emulator.exportState())).toBe(before);
  });

  it('still answers the developer who types its address', async () => {
    const page = await browser.newPage();
    const res = await page.goto(`http://localhost:${server.port}/_emulator/clock`);
    expect(res?.status()).toBe(200);
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText (the text the page shows), not the DOM property.
    expect(JSON.parse(await page.locator('body').innerText()).frozen).toBe(true);
    await page.close();
  });
});
