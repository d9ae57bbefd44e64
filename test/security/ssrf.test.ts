import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../emulator/package-info.js';
import { client } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';

interface Payload {
  url: string;
  expect: 'refused' | 'failed' | 'ready';
  error?: string;
  why: string;
}

const battery = JSON.parse(readFileSync(join(packageRoot(), 'test', 'fixtures', 'ssrf', 'payloads.json'), 'utf8')) as { web: unknown; payloads: Payload[] };
const emulator = await fileEmulator({ seed: 44 });
let api: ReturnType<typeof client>;

beforeAll(async () => {
  api = (await workspace(emulator)).api;
  expect((await client(emulator).put('/_emulator/web', battery.web)).status).toBe(200);
});

describe('the SSRF battery (test/fixtures/ssrf/payloads.json)', () => {
  it('holds at least 40 payloads', () => {
    expect(battery.payloads.length).toBeGreaterThanOrEqual(40);
  });

  it.each(battery.payloads.filter((p) => p.expect === 'refused'))('refuses $url at once ($why) and creates nothing', async ({ url }) => {
    const res = await api.post('/v1/knowledge/urls', { url });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('svc.knowledge.url_not_allowed');
    // Deliberately vague: the answer does not teach which rule matched.
    expect(res.text).not.toMatch(/loopback|private|link_local|127\.0\.0\.1/);
    expect((await api.get('/v1/knowledge/sources?limit=100')).body.data.some((s: { url: string }) => s.url === url)).toBe(false);
  });

  it.each(battery.payloads.filter((p) => p.expect !== 'refused'))(
    'accepts $url, then it ends $expect $error ($why)',
    async ({ url, expect: outcome, error }) => {
      const accepted = await api.post('/v1/knowledge/urls', { url });
      expect(accepted.status).toBe(202);
      await client(emulator).post('/_emulator/queue/drain');
      const source = (await api.get(`/v1/knowledge/sources/${accepted.body.id}`)).body;
      expect(source.status).toBe(outcome);
      if (error) expect(source.error).toBe(error);
      if (outcome === 'failed') expect(source.chunkCount).toBe(0);
    },
  );
});
