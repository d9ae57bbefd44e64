// The state gate (issue 24): every way a state comes in checks each row against what the
// service itself would have written, and a refusal changes nothing.
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { client, send } from '../support/client.js';
import { fileEmulator, quiet } from '../support/emulator.js';

const DEMO_KEY = 'svc_test_DemoFullAccessKey000000000000001_0k1rIW';
const emulator = await fileEmulator({ seed: 24, fixtures: 'demo' });
const control = client(emulator);
const api = client(emulator, DEMO_KEY);
const site = (path: string) => send(emulator, 'GET', `http://cafe-aurora.localhost${path}`);

// A state with an asset and a stored idempotent answer beside the demo's rows.
await (async () => {
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
  const form = new FormData();
  form.set('file', new File([png], 'dot.png', { type: 'image/png' }));
  expect((await api.post('/v1/assets', form)).status).toBe(201);
  expect((await api.post('/v1/agents', { name: 'Replayed', identity: { businessName: 'B' } }, { 'idempotency-key': 'gate-1' })).status).toBe(201);
})();

type Doc = { clock: { frozen: boolean; value: number }; ids: Record<string, unknown>; tables: Record<string, Record<string, any>[]> };
const exported = async (): Promise<Doc> => (await control.get('/_emulator/state')).body;
const baseline = JSON.stringify(await exported());

/** PUTs a changed copy of the state; answers the response after checking nothing changed when refused. */
async function importChanged(change: (doc: Doc) => void) {
  const doc = JSON.parse(baseline) as Doc;
  change(doc);
  // Calls with a key count as activity: compare with the state just before.
  const before = JSON.stringify(await exported());
  const res = await control.put('/_emulator/state', doc);
  if (res.status !== 200) expect(JSON.stringify(await exported())).toBe(before);
  return res;
}

const row = (doc: Doc, table: string, where: (r: Record<string, any>) => boolean = () => true) => {
  const i = doc.tables[table]!.findIndex(where);
  expect(i, `a row of ${table}`).toBeGreaterThanOrEqual(0);
  return { i, r: doc.tables[table]![i]! };
};

function expectRefused(res: Awaited<ReturnType<typeof importChanged>>, field: string | RegExp) {
  expect(res.status, res.text).toBe(400);
  expect(res.body.code).toBe('svc.request.validation_failed');
  const fields = (res.body.errors as { field: string }[]).map((e) => e.field);
  expect(
    fields.some((f) => (typeof field === 'string' ? f === field : field.test(f))),
    `${fields.join(', ')} names ${field}`,
  ).toBe(true);
}

describe('PUT /_emulator/state refuses rows the service could not have written (the issue’s cases)', () => {
  it('api_keys[].scopes that is not a JSON array of scopes', async () => {
    let at = -1;
    const res = await importChanged((doc) => {
      const { i, r } = row(doc, 'api_keys', (k) => k.name === 'demo-full');
      r.scopes = 'nope';
      at = i;
    });
    expectRefused(res, `tables.api_keys.${at}.scopes`);
    expect((await api.get('/v1/me')).status).toBe(200);
  });

  it('a third active key in one workspace (API.md: at most two); a revoked or expired third is taken (D-1116)', async () => {
    // Another workspace's key moved into the demo's, which has two active keys already.
    const other = (await control.post('/_emulator/workspaces', { name: 'other' })).body as { workspaceId: string };
    const withOther = JSON.stringify(await exported());
    const moved = (fields: Record<string, unknown>) => {
      const doc = JSON.parse(withOther) as Doc;
      const demo = row(doc, 'api_keys', (k) => k.name === 'demo-full').r.workspace_id;
      const { i, r } = row(doc, 'api_keys', (k) => k.workspace_id === other.workspaceId);
      Object.assign(r, { workspace_id: demo, ...fields });
      return { doc, i };
    };
    const third = moved({});
    const refused = await control.put('/_emulator/state', third.doc);
    expectRefused(refused, `tables.api_keys.${third.i}.revoked_at`);
    expect(refused.body.errors[0].reason).toBe('a workspace has at most 2 active keys: revoke or expire the others');
    const at = (doc: Doc) => new Date(doc.clock.value).toISOString();
    const revoked = moved({});
    revoked.doc.tables.api_keys![revoked.i]!.revoked_at = at(revoked.doc);
    expect((await control.put('/_emulator/state', revoked.doc)).status).toBe(200);
    const expired = moved({});
    expired.doc.tables.api_keys![expired.i]!.expires_at = at(expired.doc);
    expect((await control.put('/_emulator/state', expired.doc)).status).toBe(200);
    expect((await control.put('/_emulator/state', JSON.parse(baseline))).status).toBe(200);
  });

  it('workspaces[].caps that is not JSON', async () => {
    expectRefused(
      await importChanged((doc) => {
        row(doc, 'workspaces').r.caps = '{';
      }),
      'tables.workspaces.0.caps',
    );
  });

  it('pages[].editorial of "null"', async () => {
    let at = -1;
    const res = await importChanged((doc) => {
      const { i, r } = row(doc, 'pages', (p) => p.path === '/');
      r.editorial = 'null';
      at = i;
    });
    expectRefused(res, `tables.pages.${at}.editorial`);
    expect((await site('/')).status).toBe(200);
  });

  it('a page under a path the platform reserves, or a project at a reserved slug: the API refuses both (path_reserved, slug_reserved)', async () => {
    let at = -1;
    const page = await importChanged((doc) => {
      const { i, r } = row(doc, 'pages', (p) => p.path !== '/');
      r.path = '/api/menu';
      at = i;
    });
    expectRefused(page, `tables.pages.${at}.path`);
    const slug = await importChanged((doc) => {
      const { i, r } = row(doc, 'projects');
      row(doc, 'project_slugs', (s) => s.slug === r.slug && s.state === 'active').r.slug = 'www';
      r.slug = 'www';
      at = i;
    });
    expectRefused(slug, `tables.projects.${at}.slug`);
    expect((slug.body.errors as { field: string }[]).some((e) => /^tables\.project_slugs\.\d+\.slug$/.test(e.field))).toBe(true);
    expect((await site('/')).status).toBe(200);
  });

  it('a clock past any date', async () => {
    expectRefused(
      await importChanged((doc) => {
        doc.clock = { frozen: true, value: 1e17 };
      }),
      'clock.value',
    );
  });

  it('an id generator time of Infinity (1e309 in JSON)', async () => {
    const text = baseline.replace(/"ids":\{"time":[0-9]+/, '"ids":{"time":1e309');
    expect(text).not.toBe(baseline);
    const before = JSON.stringify(await exported());
    const res = await send(emulator, 'PUT', '/_emulator/state', { body: text, headers: { 'content-type': 'application/json' } });
    expectRefused(res, 'ids.time');
    expect(JSON.stringify(await exported())).toBe(before);
  });

  it('an asset whose byte_size is not the length of its bytes', async () => {
    expectRefused(
      await importChanged((doc) => {
        row(doc, 'assets').r.byte_size = 4;
      }),
      'tables.assets.0.byte_size',
    );
  });

  it('an asset whose sha256 is not the hash of its bytes', async () => {
    expectRefused(
      await importChanged((doc) => {
        row(doc, 'assets').r.sha256 = '0'.repeat(64);
      }),
      'tables.assets.0.sha256',
    );
  });

  it('a stored idempotent answer with headers the emulator never sets, or a status it never answers', async () => {
    for (const headers of [
      { 'content-type': 'application/json', 'content-length': '4' },
      { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      { 'content-type': 'application/json', 'set-cookie': 'session=x' },
      { 'content-type': 'text/html' },
    ]) {
      expectRefused(
        await importChanged((doc) => {
          row(doc, 'idempotency').r.headers = JSON.stringify(headers);
        }),
        'tables.idempotency.0.headers',
      );
    }
    for (const status of [101, 204, 304, 600, 500]) {
      expectRefused(
        await importChanged((doc) => {
          row(doc, 'idempotency').r.status = status;
        }),
        'tables.idempotency.0.status',
      );
    }
  });

  it('a stored idempotent answer that is not the answer its route gives', async () => {
    const res = await importChanged((doc) => {
      const { r } = row(doc, 'idempotency');
      const { id: _id, ...withoutId } = JSON.parse(r.body);
      r.body = JSON.stringify(withoutId);
    });
    expectRefused(res, 'tables.idempotency.0.body');
    expectRefused(
      await importChanged((doc) => {
        row(doc, 'idempotency').r.status = 202;
      }),
      'tables.idempotency.0.body',
    );
    expectRefused(
      await importChanged((doc) => {
        row(doc, 'idempotency').r.status = 203;
      }),
      'tables.idempotency.0.status',
    );
  });

  it('a theme token that is not a 6-digit hex colour (CSS injection)', async () => {
    const res = await importChanged((doc) => {
      const { r } = row(doc, 'themes');
      const tokens = JSON.parse(r.tokens);
      tokens.colors.primary = '#fff;}body{background:url(https://evil.example/beacon)}a{';
      r.tokens = JSON.stringify(tokens);
    });
    expectRefused(res, 'tables.themes.0.tokens');
    // Neither the stylesheet nor the variables inline in each page (D-871) carry it.
    expect((await site('/_site/theme.css')).text).not.toContain('evil.example');
    const page = await site('/');
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('evil.example');
  });
});

describe('the description says what the gate refuses', () => {
  it('PUT /_emulator/state declares its 400 problem', async () => {
    const doc = (await control.get('/v1/openapi.json')).body;
    const put = doc.paths['/_emulator/state'].put;
    expect(put.summary).toMatch(/refused with 400/);
    expect(Object.keys(put.responses['400'].content)).toEqual(['application/problem+json']);
  });
});

describe('the workspace lexicon (knowledge_lexicons) is gated like every table', () => {
  it('the demo state carries a learned lexicon, and imports as exported', async () => {
    const doc = JSON.parse(baseline) as Doc;
    const { r } = row(doc, 'knowledge_lexicons');
    expect(JSON.parse(r.data).pairs.length).toBeGreaterThan(0);
    const learned = JSON.parse(r.data);
    expect(learned.twinPairs.length).toBeGreaterThan(0);
    expect((await control.put('/_emulator/state', doc)).status).toBe(200);
    // One written between D-1123 and D-1124 names twinned sources, not pairs; one written
    // before D-1123 names neither: both import.
    const { twinPairs, ...before } = learned;
    r.data = JSON.stringify({ ...before, twinned: [...new Set((twinPairs as string[][]).flat())].sort() });
    expect((await control.put('/_emulator/state', doc)).status).toBe(200);
    r.data = JSON.stringify(before);
    expect((await control.put('/_emulator/state', doc)).status).toBe(200);
  });

  it.each([
    [
      'a weight past 1 (1e309 reads as Infinity)',
      (r: Record<string, any>) => {
        r.data = JSON.stringify({ ...JSON.parse(r.data), pairs: [['envio', 'ship', 0.5]] }).replace('0.5', '1e309');
      },
    ],
    [
      'a weight that is no number',
      (r: Record<string, any>) => {
        r.data = JSON.stringify({ ...JSON.parse(r.data), pairs: [['envio', 'ship', 'high']] });
      },
    ],
    [
      'a pair of three stems',
      (r: Record<string, any>) => {
        r.data = JSON.stringify({ ...JSON.parse(r.data), pairs: [['envio', 'ship', 'x', 0.5]] });
      },
    ],
    [
      'a one-letter stem',
      (r: Record<string, any>) => {
        r.data = JSON.stringify({ ...JSON.parse(r.data), pairs: [['e', 'ship', 0.5]] });
      },
    ],
    [
      'a fractional count',
      (r: Record<string, any>) => {
        r.data = JSON.stringify({ ...JSON.parse(r.data), twins: 1.5 });
      },
    ],
    [
      'a twinned source that is no content hash',
      (r: Record<string, any>) => {
        r.data = JSON.stringify({ ...JSON.parse(r.data), twinned: ['src_01'] });
      },
    ],
    [
      'a twin pair of one content hash',
      (r: Record<string, any>) => {
        r.data = JSON.stringify({ ...JSON.parse(r.data), twinPairs: [['a'.repeat(64)]] });
      },
    ],
    [
      'a twin pair naming a source id, not its content hash',
      (r: Record<string, any>) => {
        r.data = JSON.stringify({ ...JSON.parse(r.data), twinPairs: [['a'.repeat(64), 'src_01']] });
      },
    ],
    [
      'data that is not JSON',
      (r: Record<string, any>) => {
        r.data = '{';
      },
    ],
  ])('refuses %s, naming the row', async (_what, change) => {
    let at = -1;
    const res = await importChanged((doc) => {
      const { i, r } = row(doc, 'knowledge_lexicons');
      change(r);
      at = i;
    });
    expectRefused(res, `tables.knowledge_lexicons.${at}.data`);
    expect(res.body.errors.find((e: { field: string }) => e.field === `tables.knowledge_lexicons.${at}.data`).row).toMatch(/^ws_/);
  });

  it('refuses a print that is not one, a lexicon of no workspace in the state, and two of one workspace', async () => {
    expectRefused(
      await importChanged((doc) => {
        row(doc, 'knowledge_lexicons').r.print = 'lx_x';
      }),
      /^tables\.knowledge_lexicons\.\d+\.print$/,
    );
    expectRefused(
      await importChanged((doc) => {
        row(doc, 'knowledge_lexicons').r.workspace_id = 'ws_00000000000000000000000000';
      }),
      /^tables\.knowledge_lexicons\.\d+\.workspace_id$/,
    );
    expectRefused(
      await importChanged((doc) => void doc.tables.knowledge_lexicons!.push({ ...row(doc, 'knowledge_lexicons').r })),
      /^tables\.knowledge_lexicons\.\d+\.workspace_id$/,
    );
  });
});

describe('key hashes', () => {
  it('a file --export-on-exit wrote (hashes in the clear) is refused over HTTP with what to do instead (D-177)', async () => {
    const plain = JSON.parse(JSON.stringify(await emulator.exportState({ plainHashes: true }))) as Doc;
    const before = JSON.stringify(await exported());
    const res = await control.put('/_emulator/state', plain);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        field: 'tables.api_keys.0.hash',
        reason:
          'a key hash in the clear, as --export-on-exit and exportState({ plainHashes: true }) write it: this import takes hashes sealed by this emulator only; import such a file with --import at start, or importState(doc, { plainHashes: true })',
      },
    ]);
    expect(JSON.stringify(await exported())).toBe(before);
    // A hash sealed by no secret this emulator knows is another emulator's.
    const foreign = JSON.parse(baseline) as Doc;
    row(foreign, 'api_keys').r.hash = 'sealed-elsewhere';
    expect((await control.put('/_emulator/state', foreign)).body.errors[0].reason).toMatch(/^sealed by another emulator: /);
  });
});

describe('createEmulator({ state }) goes through the same gate', () => {
  it('refuses a state with an unreadable row, naming it', async () => {
    const doc = JSON.parse(JSON.stringify(await emulator.exportState({ plainHashes: true }))) as Doc;
    row(doc, 'workspaces').r.caps = '{';
    await expect(createEmulator({ state: doc, log: quiet })).rejects.toMatchObject({
      code: 'svc.request.validation_failed',
      errors: [expect.objectContaining({ field: 'tables.workspaces.0.caps' })],
    });
  });
});
