import { connect } from 'node:net';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import { StoreOpenError } from '../../src/db/database.js';
import { bySqlite, fileDigest, tempDbPath } from '../support/backends.js';
import { client, send } from '../support/client.js';

const DEMO_KEY = 'svc_test_DemoFullAccessKey000000000000001_0k1rIW';
const READ_KEY = 'svc_test_DemoReadOnlyKey00000000000000001_1YUbBi';
const logged: string[] = [];
const log = (message: string, error?: unknown) => logged.push(`${message} ${error instanceof Error ? error.message : ''}`);

let file: string;
let emulator: Emulator;
let replayer: Awaited<ReturnType<Emulator['createWorkspace']>>;
let ids: { fullKey: string; readKey: string; home: string; project: string; logo: string; workspace: string };

beforeAll(async () => {
  file = tempDbPath();
  const first = await createEmulator({ db: file, seed: 24, fixtures: 'demo', log });
  replayer = await first.createWorkspace({ name: 'Replays' });
  const api = client(first, replayer.apiKey.secret);
  expect((await api.post('/v1/agents', { name: 'Once', identity: { businessName: 'B' } }, { 'idempotency-key': 'replayed' })).status).toBe(201);
  await first.close();
  bySqlite(file, (db) => {
    const key = (name: string) => (db.prepare('SELECT id FROM api_keys WHERE name = ?').get(name) as { id: string }).id;
    const home = db.prepare("SELECT id, project_id FROM pages WHERE path = '/'").get() as { id: string; project_id: string };
    ids = {
      fullKey: key('demo-full'),
      readKey: key('demo-read-only'),
      home: home.id,
      project: home.project_id,
      logo: (db.prepare("SELECT id FROM brand_files WHERE slot = 'logo'").get() as { id: string }).id,
      workspace: (db.prepare("SELECT id FROM workspaces WHERE name != 'Replays'").get() as { id: string }).id,
    };
    db.prepare('UPDATE api_keys SET scopes = ? WHERE id = ?').run('nope', ids.fullKey);
    db.prepare('UPDATE workspaces SET caps = ? WHERE id = ?').run('{', ids.workspace);
    db.prepare('UPDATE pages SET editorial = ? WHERE id = ?').run('null', ids.home);
    const tokens = JSON.parse((db.prepare('SELECT tokens FROM themes').get() as { tokens: string }).tokens);
    tokens.colors.primary = '#fff;}body{background:url(https://evil.example/beacon)}a{';
    db.prepare('UPDATE themes SET tokens = ?').run(JSON.stringify(tokens));
    const smuggled = Buffer.concat([readLogo(db), Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 20\r\n\r\n<script>evil</script>')]);
    db.prepare('UPDATE brand_files SET bytes = ?, byte_size = 4 WHERE id = ?').run(smuggled, ids.logo);
    db.prepare('UPDATE idempotency SET status = 101, headers = ? WHERE idem_key = ?').run(
      JSON.stringify({ 'content-type': 'text/html', 'content-length': '4', 'transfer-encoding': 'chunked', 'set-cookie': 'a=b' }),
      'replayed',
    );
    db.prepare("UPDATE jobs SET payload = 'not json', run_at = '2000-01-01T00:00:00.000Z'").run();
  });
  emulator = await createEmulator({ db: file, seed: 24, fixtures: 'demo', log });
});

afterAll(() => emulator?.close());

function readLogo(db: BetterSqlite3.Database): Buffer {
  return (db.prepare('SELECT bytes FROM brand_files WHERE slot = ?').get('logo') as { bytes: Buffer }).bytes;
}

function expectUnreadable(res: { status: number; body: any }, field: string) {
  expect(res.status).toBe(503);
  expect(res.body.code).toBe('svc.service.unavailable');
  expect(res.body.errors).toEqual([expect.objectContaining({ field })]);
  expect(
    logged.some((line) => line.includes(`stored row ${field.split('.').slice(0, 2).join(' ')}: column ${field.split('.')[2]}`)),
    logged.join('\n'),
  ).toBe(true);
}

describe('a value the service cannot read answers a problem naming its row', () => {
  it('a key whose scopes are not JSON: 503 naming the key, not a 500', async () => {
    expectUnreadable(await client(emulator, DEMO_KEY).get('/v1/me'), `api_keys.${ids.fullKey}.scopes`);
  });

  it('a workspace whose caps are not JSON: usage and the UI’s workspace list answer 503 naming it', async () => {
    expectUnreadable(await client(emulator, READ_KEY).get('/v1/usage'), `workspaces.${ids.workspace}.caps`);
    expect((await client(emulator).get(`/_emulator/workspaces/${ids.workspace}`)).status).toBe(503);
  });

  it('a page whose editorial is "null": the API and the hosted page answer 503 naming it', async () => {
    expectUnreadable(await client(emulator, READ_KEY).get(`/v1/pages/${ids.home}`), `pages.${ids.home}.editorial`);
    const site = await send(emulator, 'GET', 'http://cafe-aurora.localhost/');
    expect(site.status).toBe(503);
    expect(site.body.errors[0].field).toBe(`pages.${ids.home}.editorial`);
  });

  it('a theme token that is not a hex colour never reaches CSS', async () => {
    // The stylesheet is the layout only; the variables are inline in each page (D-871).
    const css = await send(emulator, 'GET', 'http://cafe-aurora.localhost/_site/theme.css');
    expect(css.status).toBe(200);
    expect(css.text).not.toContain('evil.example');
    const page = await send(emulator, 'GET', 'http://cafe-aurora.localhost/menu');
    // 503 naming a stored row of the site (its home page's editorial is unreadable too).
    expect(page.status).toBe(503);
    expect(page.text).not.toContain('evil.example');
    const shown = await send(emulator, 'GET', 'http://cafe-aurora.localhost/menu', { headers: { accept: 'text/html' } });
    expect(shown.status).toBe(503);
    expect(shown.headers.get('content-type')).toContain('text/html');
    expect(shown.text).not.toContain('evil.example');
    expectUnreadable(await client(emulator, READ_KEY).get(`/v1/projects/${ids.project}/theme`), `themes.${ids.project}.tokens`);
  });

  it('a stored replay with a status and headers the emulator never records: 503, nothing replayed', async () => {
    const res = await client(emulator, replayer.apiKey.secret).post(
      '/v1/agents',
      { name: 'Once', identity: { businessName: 'B' } },
      { 'idempotency-key': 'replayed' },
    );
    expectUnreadable(res, `idempotency.${replayer.apiKey.id}/replayed.status`);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('content-type')).toBe('application/problem+json');
  });

  it('a job whose payload is not JSON fails, naming the row, and the queue drains', async () => {
    await emulator.drain();
    expect(
      logged.some((line) => /stored row jobs job_\S+: column payload: not JSON/.test(line)),
      logged.join('\n'),
    ).toBe(true);
  });
});

describe('a stored replay that is not the answer its route gives', () => {
  it('answers 503 naming the row, not a body its route never sends', async () => {
    const path = tempDbPath();
    const first = await createEmulator({ db: path, fixtures: 'none', log });
    const made = await first.createWorkspace({ name: 'Replays' });
    const api = client(first, made.apiKey.secret);
    expect((await api.post('/v1/agents', { name: 'Once', identity: { businessName: 'B' } }, { 'idempotency-key': 'k' })).status).toBe(201);
    await first.close();
    bySqlite(path, (db) => {
      const row = db.prepare('SELECT body FROM idempotency').get() as { body: string };
      const { id: _id, ...rest } = JSON.parse(row.body);
      db.prepare('UPDATE idempotency SET body = ?').run(JSON.stringify(rest));
    });
    const again = await createEmulator({ db: path, fixtures: 'none', log });
    try {
      const res = await client(again, made.apiKey.secret).post('/v1/agents', { name: 'Once', identity: { businessName: 'B' } }, { 'idempotency-key': 'k' });
      expectUnreadable(res, `idempotency.${made.apiKey.id}/k.body`);
    } finally {
      await again.close();
    }
  });
});

describe('on the wire, a stored file is sent with its own length', () => {
  it('byte_size 4 over 120 bytes: content-length is the real length, and nothing follows on the connection', async () => {
    const server = await emulator.listen();
    try {
      const brand = await client(server.url, READ_KEY).get(`/v1/projects/${ids.project}/brand`);
      const url = new URL(brand.body.logo.url);
      const raw = await rawExchange(
        server.port,
        `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /_emulator/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
      );
      const responses = splitResponses(raw);
      expect(responses.map((r) => r.status)).toEqual([200, 200]);
      expect(responses[0]!.body.includes(Buffer.from('<script>evil</script>'))).toBe(true);
      expect(responses[1]!.body.toString()).toContain('"status":"ok"');
    } finally {
      await server.close();
    }
  });
});

describe('a stored lexicon the service cannot read', () => {
  it('costs the expansion, never the query: answers as without a lexicon, and the log names the row', async () => {
    const path = tempDbPath();
    await (await createEmulator({ db: path, seed: 24, fixtures: 'demo', log })).close();
    let workspace = '';
    bySqlite(path, (db) => {
      workspace = (db.prepare('SELECT workspace_id FROM knowledge_lexicons').get() as { workspace_id: string }).workspace_id;
      // 1e309 reads as Infinity: no weight the service writes.
      expect(db.prepare('UPDATE knowledge_lexicons SET data = ?').run('{"pairs":[["envi","ship",1e309]],"twins":1,"units":1}').changes).toBe(1);
    });
    const reopened = await createEmulator({ db: path, seed: 24, fixtures: 'demo', log });
    try {
      const api = client(reopened, DEMO_KEY);
      const agent = ((await api.get('/v1/agents')).body.data as { id: string }[])[0]!.id;
      const res = await api.post(`/v1/agents/${agent}/query`, { query: '¿Cuándo me lo enviáis?' });
      expect(res.status, res.text).toBe(200);
      expect((await client(reopened).get(`/_emulator/workspaces/${workspace}/lexicon`)).body).toMatchObject({ twins: 0, pairs: [] });
      expect(
        logged.some((line) => line.includes(`stored row knowledge_lexicons ${workspace}: column data`)),
        logged.join('\n'),
      ).toBe(true);
    } finally {
      await reopened.close();
    }
  });
});

describe('a --db file an older version wrote is checked when opened', () => {
  it('without the gate mark, its rows go through the gate: the start is refused naming the row, the file unchanged', async () => {
    const older = tempDbPath();
    const made = await createEmulator({ db: older, fixtures: 'none', log });
    await made.createWorkspace({ name: 'Older' });
    await made.close();
    bySqlite(older, (db) => {
      db.prepare("DELETE FROM meta WHERE key = 'state_gate'").run();
      db.prepare('UPDATE api_keys SET scopes = ?').run('nope');
    });
    const before = fileDigest(older);
    const refused = await createEmulator({ db: older, fixtures: 'none', log }).then(
      (e) => e.close().then(() => undefined),
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StoreOpenError);
    expect((refused as Error).message).toMatch(
      new RegExp(
        `^cannot use ${older}: it holds rows this svc-emulator could not have written \\(tables\\.api_keys\\.0\\.scopes \\(key_\\w+\\): must be JSON text`,
      ),
    );
    expect(fileDigest(older)).toBe(before);

    // Mended, it opens, and is marked so that the next start does not read it whole again.
    bySqlite(older, (db) => db.prepare('UPDATE api_keys SET scopes = ?').run('["projects:read"]'));
    const opened = await createEmulator({ db: older, fixtures: 'none', log });
    await opened.close();
    bySqlite(older, (db) => expect(db.prepare("SELECT value FROM meta WHERE key = 'state_gate'").get()).toEqual({ value: '1' }));
  });

  it('a gate mark that is not a number is no mark: the file is checked', async () => {
    const path = tempDbPath();
    const made = await createEmulator({ db: path, fixtures: 'none', log });
    await made.createWorkspace({ name: 'W' });
    await made.close();
    bySqlite(path, (db) => {
      db.prepare("UPDATE meta SET value = 'not json' WHERE key = 'state_gate'").run();
      db.prepare("UPDATE workspaces SET credits = 'lots'").run();
    });
    const before = fileDigest(path);
    await expect(createEmulator({ db: path, fixtures: 'none', log })).rejects.toThrow(/holds rows this svc-emulator could not have written/);
    expect(fileDigest(path)).toBe(before);
  });

  it('a clock written by hand past any date stops the start, naming meta.clock', async () => {
    const path = tempDbPath();
    await (await createEmulator({ db: path, fixtures: 'none', log })).close();
    bySqlite(path, (db) => db.prepare("UPDATE meta SET value = ? WHERE key = 'clock'").run(JSON.stringify({ frozen: true, value: 1e17 })));
    await expect(createEmulator({ db: path, fixtures: 'none', log })).rejects.toThrow(/meta\.clock\.value cannot be read/);
  });

  it('a reset whose stored baseline is not a state answers 503 naming meta.baseline, and changes nothing (D-1201)', async () => {
    const path = tempDbPath();
    const made = await createEmulator({ db: path, fixtures: 'none', log });
    await made.createWorkspace({ name: 'Kept' });
    await made.close();
    bySqlite(path, (db) => db.prepare("UPDATE meta SET value = ? WHERE key = 'baseline'").run(JSON.stringify({ hello: 'world' })));
    const reopened = await createEmulator({ db: path, fixtures: 'none', log });
    try {
      const res = await send(reopened, 'POST', '/_emulator/reset');
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('svc.service.unavailable');
      expect(res.body.errors[0].field).toMatch(/^meta\.baseline/);
      expect(res.body.detail).toContain('--db');
      expect(((await reopened.exportState()).tables.workspaces ?? []).map((w) => w.name)).toContain('Kept');
    } finally {
      await reopened.close();
    }
  });
});

/** Sends bytes on one connection and reads everything until the server closes it. */
function rawExchange(port: number, request: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks)));
    socket.on('error', reject);
  });
}

/** Splits HTTP/1.1 responses by their content-length (what a keep-alive client does). */
function splitResponses(raw: Buffer): { status: number; body: Buffer }[] {
  const out: { status: number; body: Buffer }[] = [];
  let at = 0;
  while (at < raw.length) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end < 0) throw new Error(`trailing bytes that are no response: ${raw.subarray(at).toString()}`);
    const head = raw.subarray(at, end).toString();
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
    const chunked = /\r\ntransfer-encoding: chunked/i.test(head);
    let body: Buffer;
    if (chunked) {
      const parts: Buffer[] = [];
      let p = end + 4;
      for (;;) {
        const line = raw.indexOf('\r\n', p);
        const size = Number.parseInt(raw.subarray(p, line).toString(), 16);
        p = line + 2;
        if (size === 0) {
          p += 2;
          break;
        }
        parts.push(raw.subarray(p, p + size));
        p += size + 2;
      }
      body = Buffer.concat(parts);
      at = p;
    } else {
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
      body = raw.subarray(end + 4, end + 4 + length);
      at = end + 4 + length;
    }
    out.push({ status, body });
  }
  return out;
}

describe('a --db file whose schema or settings svc-emulator did not write is refused before anything runs on it (D-1151)', () => {
  /** A marked store file changed by `change`, refused at start with `message`, byte for byte as it was. */
  async function refusedAfter(change: (db: BetterSqlite3.Database) => void, message: RegExp): Promise<void> {
    const path = tempDbPath();
    const made = await createEmulator({ db: path, seed: 5, fixtures: 'none', log });
    await made.createWorkspace({ name: 'W' });
    await made.close();
    bySqlite(path, change);
    const before = fileDigest(path);
    const refused = await createEmulator({ db: path, seed: 5, fixtures: 'none', log }).then(
      (e) => e.close().then(() => undefined),
      (error: unknown) => error,
    );
    expect(refused, String(message)).toBeInstanceOf(StoreOpenError);
    expect((refused as Error).message).toMatch(message);
    expect((refused as Error).message.startsWith(`cannot use ${path}: `)).toBe(true);
    expect(fileDigest(path)).toBe(before);
  }

  it.each([
    [
      "a trigger that fires on the emulator's own writes",
      'CREATE TRIGGER evil AFTER INSERT ON agents BEGIN UPDATE workspaces SET credits = 5; END',
      /holds a trigger svc-emulator does not write \(evil\)/,
    ],
    [
      'a trigger that refuses its writes',
      "CREATE TRIGGER boom BEFORE UPDATE ON agents BEGIN SELECT RAISE(FAIL, 'nope'); END",
      /holds a trigger svc-emulator does not write \(boom\)/,
    ],
    ['a view', 'CREATE VIEW v AS SELECT 1', /holds a view svc-emulator does not write \(v\)/],
    ['a unique index its inserts would break', 'CREATE UNIQUE INDEX one_name ON agents (name)', /holds an index svc-emulator does not write \(one_name\)/],
    ['a table less', 'DROP TABLE brand_files', /has no table brand_files/],
    ['no meta table', 'DROP TABLE meta', /has no table meta/],
    ['a column more', "ALTER TABLE agents ADD COLUMN leak TEXT DEFAULT 'x'", /its table agents has other columns than svc-emulator writes/],
    ['the full-text index out of step', 'DROP TRIGGER knowledge_chunks_fts_insert', /has no trigger knowledge_chunks_fts_insert/],
    [
      'a migration of a newer version',
      "INSERT INTO kysely_migration VALUES ('9999-future', '2030-01-01T00:00:00.000Z')",
      /written by a newer svc-emulator \(migration 9999-future\); upgrade/,
    ],
    ['a secret that is not one', "UPDATE meta SET value = '123' WHERE key = 'secret'", /its meta\.secret is not a secret svc-emulator writes/],
    [
      'an offline web it would refuse',
      `UPDATE meta SET value = '{"pages":[{"url":5}]}' WHERE key = 'knowledge.web'`,
      /its meta\.knowledge\.web is not an offline web svc-emulator writes \(pages\.0\.url: /,
    ],
    [
      // The whole-web check ran on it too and threw `Invalid URL` (D-1174).
      'an offline web page whose URL no URL parser reads',
      `UPDATE meta SET value = '{"pages":[{"url":"nope"}],"dns":{}}' WHERE key = 'knowledge.web'`,
      /its meta\.knowledge\.web is not an offline web svc-emulator writes \(pages\.0\.url: must be an absolute http or https URL\)/,
    ],
  ])('%s', async (_, statement, message) => {
    await refusedAfter((db) => {
      // The web is written by PUT /_emulator/web; a store without one gets one to break.
      db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (\'knowledge.web\', \'{"pages":[],"dns":{}}\')').run();
      db.exec(statement);
    }, message);
  });

  it('a file without the mark is refused the same way (its copy is never skipped)', async () => {
    await refusedAfter((db) => {
      db.prepare("DELETE FROM meta WHERE key = 'state_gate'").run();
      db.exec('CREATE TRIGGER evil AFTER INSERT ON agents BEGIN UPDATE workspaces SET credits = 5; END');
    }, /holds a trigger svc-emulator does not write \(evil\)/);
  });

  it("SQLite's own statistics (ANALYZE) are not the file's author's: it opens", async () => {
    const path = tempDbPath();
    await (await createEmulator({ db: path, fixtures: 'none', log })).close();
    bySqlite(path, (db) => db.exec('ANALYZE'));
    await (await createEmulator({ db: path, fixtures: 'none', log })).close();
  });
});
