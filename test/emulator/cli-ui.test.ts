import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { exited, startCli } from '../support/cli.js';

const running = new Set<ChildProcess>();
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

describe('CLI: the emulator UI', () => {
  it('prints the UI address on the line after the ready line, and the built CLI serves the page and every file', async () => {
    const { child, url, stdout } = await startCli(['--fixtures', 'none', '--admin-token', 'tok'], { track: running });
    const [ready, ui] = stdout().split('\n');
    expect(ready).toBe(`svc-emulator ready at ${url}`);
    expect(ui).toBe(`  UI: ${url}/_emulator/ui`);
    const page = await fetch(`${url}/_emulator/ui`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await page.text()).toContain('<script type="module" src="/_emulator/ui/ui.js">');
    // Each section has its own address, served by the built CLI too.
    expect((await fetch(`${url}/_emulator/ui/requests`)).status).toBe(200);
    // The bundle finds the UI's files and the vendored SSE parser from dist/ too.
    const files = ['ui.js', 'api.js', 'act.js', 'router.js', 'workspaces.js', 'keys.js', 'held-keys.js', 'resources.js', 'chat.js', 'journal.js', 'clock.js', 'faults.js', 'state.js', 'dom.js', 'ui.css', 'favicon.svg'];
    for (const file of [...files, 'vendor/eventsource-parser/stream.js', 'vendor/eventsource-parser/index.js']) {
      expect((await fetch(`${url}/_emulator/ui/${file}`)).status, file).toBe(200);
    }
    expect((await fetch(`${url}/_emulator/workspaces`)).status).toBe(401);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });
});
