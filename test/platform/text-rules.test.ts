import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { client, send } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';

const emulator = await fileEmulator({ seed: 43 });
const ws = await workspace(emulator);
const { api } = ws;
const control = client(emulator);

const EMOJI = '\u{1F600}';

/** A JSON body with a lone surrogate written as an escape (JSON.stringify would keep it too). */
function rawJson(text: string): { body: string; headers: Record<string, string> } {
  return { body: text, headers: { 'content-type': 'application/json' } };
}

async function stateText(): Promise<string> {
  const { activity: _meter, ...tables } = (await emulator.exportState()).tables;
  return JSON.stringify(tables);
}

describe('lengths count characters (Unicode code points)', () => {
  it('an agent name of 80 emoji is accepted and reads back the same; 81 are refused', async () => {
    const created = await api.post('/v1/agents', { name: EMOJI.repeat(80), identity: { businessName: EMOJI.repeat(120) } });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe(EMOJI.repeat(80));
    expect((await api.get(`/v1/agents/${created.body.id}`)).body.name).toBe(EMOJI.repeat(80));
    const long = await api.post('/v1/agents', { name: EMOJI.repeat(81), identity: { businessName: 'B' } });
    expect(long.status).toBe(400);
    expect(long.body.code).toBe('svc.agent.invalid');
    expect(long.body.errors).toEqual([{ field: 'name', reason: 'must be 1 to 80 characters' }]);
    // The 41-emoji name of the issue (82 UTF-16 units).
    expect((await api.post('/v1/agents', { name: EMOJI.repeat(41), identity: { businessName: 'B' } })).status).toBe(201);
  });

  it('counts code points, not grapheme clusters: a combining accent is a character of its own', async () => {
    const decomposed = 'e\u0301';
    expect((await api.post('/v1/agents', { name: decomposed.repeat(40), identity: { businessName: 'B' } })).status).toBe(201);
    expect((await api.post('/v1/agents', { name: `${decomposed.repeat(40)}x`, identity: { businessName: 'B' } })).status).toBe(400);
  });

  it('applies to projects, pages, knowledge, keys, brand and the control plane alike', async () => {
    const project = await api.post('/v1/projects', { name: EMOJI.repeat(80), slug: 'emoji-site' });
    expect(project.status).toBe(201);
    expect((await api.post('/v1/projects', { name: EMOJI.repeat(81), slug: 'emoji-two' })).body.errors[0]).toEqual({
      field: 'name',
      reason: 'must be 1 to 80 characters',
    });
    const title = await api.post('/v1/knowledge/text', { title: EMOJI.repeat(120), text: EMOJI.repeat(3000) });
    expect(title.status).toBe(202);
    expect((await api.post('/v1/knowledge/text', { title: EMOJI.repeat(121), text: 'x' })).body.errors[0].field).toBe('title');
    const page = await api.post(`/v1/projects/${project.body.id}/pages`, {
      name: 'P',
      kind: 'document',
      path: '/p',
      seo: { title: { es: EMOJI.repeat(200) } },
    });
    expect(page.status, page.text).toBe(201);
    expect(
      (await api.post(`/v1/projects/${project.body.id}/pages`, { name: 'Q', kind: 'document', path: '/q', seo: { title: { es: EMOJI.repeat(201) } } })).body
        .errors[0].field,
    ).toBe('seo.title.es');
    const key = await control.post(`/workspaces/${ws.workspaceId}/keys`, { name: EMOJI.repeat(80), scopes: ['landings:read'] });
    expect(key.status).toBe(201);
    expect((await control.post(`/workspaces/${ws.workspaceId}/keys`, { name: EMOJI.repeat(81), scopes: ['landings:read'] })).status).toBe(400);
    expect((await control.post('/_emulator/workspaces', { name: EMOJI.repeat(80) })).status).toBe(201);
    expect((await control.post('/_emulator/workspaces', { name: EMOJI.repeat(81) })).body.errors[0]).toEqual({
      field: 'name',
      reason: 'must be 1 to 80 characters',
    });
    const brand = await api.patch(`/v1/projects/${project.body.id}/brand`, { footer: { text: { es: EMOJI.repeat(500) } } });
    expect(brand.status).toBe(200);
    expect((await api.patch(`/v1/projects/${project.body.id}/brand`, { footer: { text: { es: EMOJI.repeat(501) } } })).body.errors[0].field).toBe(
      'footer.text.es',
    );
  });

  it('the OpenAPI description still shows minLength/maxLength, and JSON Schema agrees with the server', async () => {
    const doc = (await send(emulator, 'GET', '/v1/openapi.json')).body;
    const component = (schema: any) => (typeof schema.$ref === 'string' ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema);
    const body = component(doc.paths['/v1/agents'].post.requestBody.content['application/json'].schema);
    expect(body.properties.name).toMatchObject({ type: 'string', minLength: 1, maxLength: 80 });
    expect(body.properties.identity.properties.description).toMatchObject({ maxLength: 2000 });
    // JSON Schema counts code points too: 80 emoji pass, 81 do not, as on the server.
    const validate = new Ajv2020({ strict: false }).compile(body.properties.name);
    expect(validate(EMOJI.repeat(80))).toBe(true);
    expect(validate(EMOJI.repeat(81))).toBe(false);
    const topics = component(doc.paths['/v1/knowledge/text'].post.requestBody.content['application/json'].schema).properties.topics;
    // A tag as sent (D-1192): the server trims and lowercases it, so JSON Schema lets the white space and capitals through, and counts 40 without the spaces.
    const tag = new Ajv2020({ strict: false }).compile(topics.items);
    for (const ok of ['rentals', ' RENTALS ', `\t${'a'.repeat(40)}\n`, 'e-bikes-2']) expect(tag(ok), JSON.stringify(ok)).toBe(true);
    for (const bad of ['', '  ', 'a'.repeat(41), 'a--b', '-a', 'caf\u00e9', '\u212aelvin', 'a b']) expect(tag(bad), JSON.stringify(bad)).toBe(false);
    for (const ok of [' RENTALS ', `\t${'a'.repeat(40)}\n`]) {
      expect((await api.post('/v1/knowledge/text', { title: 'Tagged', text: 'x', topics: [ok] })).status, JSON.stringify(ok)).toBe(202);
    }
    expect((await api.post('/v1/knowledge/text', { title: 'Tagged', text: 'x', topics: ['a'.repeat(41)] })).status).toBe(400);
  });
});

describe('lone surrogates are refused with the field named', () => {
  it('in a value, a nested value and a key of a /v1 body; nothing is stored', async () => {
    // Sources accepted by earlier tests are still being ingested; let them finish so only these requests could change the state.
    await emulator.drain();
    const before = await stateText();
    const cases: [string, string, string][] = [
      ['{"name":"a\\uD800b","identity":{"businessName":"B"}}', 'name', 'must be well-formed Unicode text (it holds a lone surrogate)'],
      ['{"name":"A","identity":{"businessName":"\\uDC00"}}', 'identity.businessName', 'must be well-formed Unicode text (it holds a lone surrogate)'],
      [
        '{"name":"A","identity":{"businessName":"B","x\\uD83D":1}}',
        'identity.x\uFFFD',
        'the field name must be well-formed Unicode text (it holds a lone surrogate)',
      ],
    ];
    for (const [text, field, reason] of cases) {
      const res = await send(emulator, 'POST', '/v1/agents', { key: ws.key, ...rawJson(text) });
      expect(res.status, text).toBe(400);
      expect(res.body.code).toBe('svc.agent.invalid');
      expect(res.body.errors).toEqual([{ field, reason }]);
    }
    expect(await stateText()).toBe(before);
    // A surrogate pair written as escapes is a real character and is kept.
    const pair = await send(emulator, 'POST', '/v1/agents', { key: ws.key, ...rawJson('{"name":"\\uD83D\\uDE00","identity":{"businessName":"B"}}') });
    expect(pair.status).toBe(201);
    expect((await api.get(`/v1/agents/${pair.body.id}`)).body.name).toBe(EMOJI);
  });

  it("uses each route's own invalid code, and validation_failed on the control plane and chat", async () => {
    const project = await send(emulator, 'POST', '/v1/projects', { key: ws.key, ...rawJson('{"name":"\\uDFFF"}') });
    expect(project.body).toMatchObject({ code: 'svc.project.invalid', errors: [{ field: 'name' }] });
    const text = await send(emulator, 'POST', '/v1/knowledge/text', { key: ws.key, ...rawJson('{"title":"T","text":"ok","topics":["a\\uD800"]}') });
    expect(text.body).toMatchObject({ code: 'svc.knowledge.source_invalid', errors: [{ field: 'topics.0' }] });
    const agent = (await api.post('/v1/agents', { name: 'Chat', identity: { businessName: 'B' } })).body;
    const chat = await send(emulator, 'POST', `/v1/agents/${agent.id}/chat`, { key: ws.key, ...rawJson('{"message":"hi \\uD800"}') });
    expect(chat.body).toMatchObject({ code: 'svc.request.validation_failed', errors: [{ field: 'message' }] });
    const created = await send(emulator, 'POST', '/_emulator/workspaces', rawJson('{"name":"\\uD800"}'));
    expect(created.body).toMatchObject({ code: 'svc.request.validation_failed', errors: [{ field: 'name' }] });
    const key = await send(emulator, 'POST', `/workspaces/${ws.workspaceId}/keys`, rawJson('{"name":"k","scopes":["landings:read"],"\\uDC00":true}'));
    expect(key.status).toBe(400);
    expect(key.body.errors[0].field).toBe('\uFFFD');
  });

  it('in a JSON array sent in a multipart text field (knowledge upload topics)', async () => {
    const form = new FormData();
    form.set('file', new File(['Opening hours: nine to five.'], 'hours.txt', { type: 'text/plain' }));
    form.set('topics', '["hours","x\\uD800"]');
    const res = await api.post('/v1/knowledge/uploads', form);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'svc.knowledge.source_invalid', errors: [{ field: 'topics.1' }] });
  });
});

describe('topics refuse look-alike letters, as slugs and page paths do', () => {
  it('KELVIN SIGN, long s, fullwidth letters and dotless i are refused, not folded into ASCII tags', async () => {
    const agent = (await api.post('/v1/agents', { name: 'Q', identity: { businessName: 'B' } })).body;
    for (const topic of ['\u212Aelvin', 'ca\u017Fe', '\uFF4Belvin', 'd\u0131giri', 'KELV\u0130N']) {
      const res = await api.post('/v1/knowledge/text', { title: 'T', text: 'x', topics: [topic] });
      expect(res.status, topic).toBe(400);
      expect(res.body.code).toBe('svc.knowledge.source_invalid');
      expect(res.body.errors[0]).toEqual({ field: 'topics.0', reason: 'must be ASCII letters and digits in words joined by single hyphens' });
      const query = await api.post(`/v1/agents/${agent.id}/query`, { query: 'x', topics: [topic] });
      expect(query.status, topic).toBe(400);
      expect(query.body.errors[0].field).toBe('topics.0');
    }
    // ASCII capitals still fold, and spaces around a tag are still trimmed.
    const ok = await api.post('/v1/knowledge/text', { title: 'T', text: 'x', topics: [' KELVIN ', 'Kelvin'] });
    expect(ok.status).toBe(202);
    expect(ok.body.topics).toEqual(['kelvin']);
    const merge = await api.post('/v1/knowledge/topics/merge', { from: '\u212Aelvin', into: 'other' });
    expect(merge.status).toBe(400);
    expect(merge.body.errors[0].field).toBe('from');
  });
});

describe('names and titles are one visible line (D-1182)', () => {
  const ONE_LINE = 'must be one line without control characters or bidi overrides';

  it('refuses controls, escape sequences, line separators and bidi overrides in every name and title, storing nothing', async () => {
    const project = (await api.post('/v1/projects', { name: 'Lines', slug: 'lines-site' })).body;
    const before = await stateText();
    const bad = ['a\u0000b', 'red \u001b[31mtext', 'two\nlines', 'tab\there', 'sep\u2028arator', 'gnp.exe\u202eabc', 'iso\u2066late\u2069', 'c1\u0085'];
    for (const name of bad) {
      const cases: [Promise<{ status: number; body: any }>, string][] = [
        [api.post('/v1/projects', { name, slug: 'bad-line' }), 'name'],
        [api.patch(`/v1/projects/${project.id}`, { name }), 'name'],
        [api.post('/v1/agents', { name, identity: { businessName: 'B' } }), 'name'],
        [api.post('/v1/agents', { name: 'A', identity: { businessName: name } }), 'identity.businessName'],
        [api.post(`/v1/projects/${project.id}/pages`, { name, kind: 'document', path: '/l' }), 'name'],
        [api.post('/v1/knowledge/text', { title: name, text: 'body' }), 'title'],
        [control.post(`/workspaces/${ws.workspaceId}/keys`, { name, scopes: ['landings:read'] }), 'name'],
        [control.post('/_emulator/workspaces', { name }), 'name'],
        [api.patch(`/v1/projects/${project.id}/brand`, { navbar: { links: [{ label: { es: name, en: 'x' }, href: '/' }] } }), 'navbar.links.0.label.es'],
      ];
      for (const [answer, field] of cases) {
        const res = await answer;
        expect([res.status, res.body.errors?.[0]], JSON.stringify(name)).toEqual([400, { field, reason: ONE_LINE }]);
      }
    }
    // A line break or a tab around a name is trimmed, as white space is.
    expect((await api.post('/v1/agents', { name: '\n\tTrimmed\n', identity: { businessName: 'B' } })).body.name).toBe('Trimmed');
    expect((await stateText()).length).toBeGreaterThan(before.length);
  });

  it('a name or a text that shows nothing is blank: zero-width spaces, joiners and a BOM alone are refused', async () => {
    const invisible = ['\u200b', '\u200b\u200b', '\ufeff', '\u200d \u2060', '\u00ad'];
    for (const text of invisible) {
      const shown = JSON.stringify(text);
      // A BOM is white space to trim(): a name of it alone is empty once trimmed.
      const reason = text === '\ufeff' ? 'must be 1 to 80 characters' : 'must not be blank';
      expect((await api.post('/v1/agents', { name: text, identity: { businessName: 'B' } })).body.errors, shown).toEqual([{ field: 'name', reason }]);
      expect((await api.post('/v1/knowledge/text', { title: text, text: 'x' })).body.errors?.[0].field, shown).toBe('title');
      expect((await api.post('/v1/knowledge/text', { title: 'T', text })).body.errors, shown).toEqual([{ field: 'text', reason: 'must not be blank' }]);
    }
    // Names in any script, with their joiners, accents and emoji, are names.
    for (const name of ['Café Aurora', 'مقهى', '👩‍🍳 Chef', 'e\u0301', 'ﬁ']) {
      expect((await api.post('/v1/agents', { name, identity: { businessName: name } })).status, name).toBe(201);
    }
  });

  it('a chat message or a query of invisible characters is blank: refused before any credit is spent', async () => {
    const agent = (await api.post('/v1/agents', { name: 'Blank', identity: { businessName: 'B' } })).body;
    const credits = (await control.get(`/_emulator/workspaces/${ws.workspaceId}`)).body;
    for (const message of ['\u200b\u200b', '\ufeff', '\u2060']) {
      const chat = await api.post(`/v1/agents/${agent.id}/chat`, { message });
      expect([chat.status, chat.body.errors], JSON.stringify(message)).toEqual([400, [{ field: 'message', reason: 'must not be blank' }]]);
      const query = await api.post(`/v1/agents/${agent.id}/query`, { query: message });
      expect([query.status, query.body.errors], JSON.stringify(message)).toEqual([400, [{ field: 'query', reason: 'must not be blank' }]]);
    }
    expect((await control.get(`/_emulator/workspaces/${ws.workspaceId}`)).body).toEqual(credits);
  });

  it('the OpenAPI description gives the one-line rule as a pattern a client can check', async () => {
    const doc = (await send(emulator, 'GET', '/v1/openapi.json')).body;
    const component = (schema: any) => (typeof schema.$ref === 'string' ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema);
    const name = component(doc.paths['/v1/agents'].post.requestBody.content['application/json'].schema).properties.name;
    const validate = new Ajv2020({ strict: false }).compile(name);
    for (const ok of ['Aurora', 'مقهى', EMOJI]) expect(validate(ok), ok).toBe(true);
    for (const bad of ['a\u0000b', 'two\nlines', 'x\u202ey', 'c1\u0085']) expect(validate(bad), JSON.stringify(bad)).toBe(false);
  });
});
