import { describe, expect, it } from 'vitest';
import { TaggingTranslator, type Translator } from '../../src/pages/translator.js';
import { fileEmulator } from '../support/emulator.js';
import { site } from './support.js';

const emulator = await fileEmulator();

const BODY = '# Welcome\n\nSome *text* here.\n\n- one\n- two\n\n```\nconst x = 1;\n```\n';
const BODY_ES = '# [es] Welcome\n\n[es] Some *text* here.\n\n- [es] one\n- [es] two\n\n```\nconst x = 1;\n```\n';

describe('the default translator', () => {
  it('leaves code as CommonMark delimits it: a longer fence holds shorter ones, and the text after the block is translated', async () => {
    const body = 'Run:\n\n````md\n```\n# not a heading\n```\n````\n\n# Next\n\nDone.';
    expect(await new TaggingTranslator().translate([body], 'en', 'es')).toEqual([
      '[es] Run:\n\n````md\n```\n# not a heading\n```\n````\n\n# [es] Next\n\n[es] Done.',
    ]);
  });
});

describe('adding a locale', () => {
  it('fills every text of the new language the owner has not written, on every page of the site only', async () => {
    const s = await site(emulator);
    const home = await s.agentPage('/', {
      editorial: { title: { en: 'Hello' }, badge: { en: 'New', es: 'Escrito por mí' } },
      seo: { description: { en: 'Ask anything' } },
    });
    const about = await s.doc('/about', { body: { en: BODY }, seo: { title: { en: 'About' } } });
    const other = await site(emulator);
    const untouched = await other.doc('/', { body: { en: 'Other site' } });

    const patched = await s.api.patch(`/v1/projects/${s.projectId}`, { locales: ['en', 'es'] });
    expect(patched.body.locales).toEqual(['en', 'es']);
    await emulator.drain();

    const h = (await s.api.get(`/v1/pages/${home.id}`)).body;
    expect(h.editorial).toEqual({
      badge: { en: 'New', es: 'Escrito por mí' },
      title: { en: 'Hello', es: '[es] Hello' },
      titleAccent: { en: '', es: '' },
      description: { en: '', es: '' },
    });
    expect(h.seo).toEqual({ title: { en: '', es: '' }, description: { en: 'Ask anything', es: '[es] Ask anything' } });
    const a = (await s.api.get(`/v1/pages/${about.id}`)).body;
    expect(a.body).toEqual({ en: BODY, es: BODY_ES });
    expect(a.seo.title).toEqual({ en: 'About', es: '[es] About' });
    expect(a.defaultLocale).toBe('en');
    expect((await other.api.get(`/v1/pages/${untouched.id}`)).body).toEqual(untouched);
  });

  it('translates towards English on a Spanish site', async () => {
    const s = await site(emulator, { locales: ['es'] });
    const page = await s.doc('/', { body: { es: 'Hola' } });
    await s.api.patch(`/v1/projects/${s.projectId}`, { locales: ['es', 'en'] });
    await emulator.drain();
    expect((await s.api.get(`/v1/pages/${page.id}`)).body.body).toEqual({ es: 'Hola', en: '[en] Hola' });
  });

  it('removing a locale stops serving it and deletes nothing; adding it again refreshes only machine texts', async () => {
    const s = await site(emulator);
    const page = await s.agentPage('/', { editorial: { title: { en: 'Hello' }, description: { en: 'Old source' } } });
    await s.api.patch(`/v1/projects/${s.projectId}`, { locales: ['en', 'es'] });
    await emulator.drain();
    const removed = await s.api.patch(`/v1/projects/${s.projectId}`, { locales: ['en'] });
    expect(removed.body.locales).toEqual(['en']);
    await emulator.drain();
    const kept = (await s.api.get(`/v1/pages/${page.id}`)).body;
    expect(kept.editorial.title).toEqual({ en: 'Hello', es: '[es] Hello' });

    // The owner rewrites the English source and writes one Spanish text by hand.
    await s.api.patch(`/v1/pages/${page.id}`, { editorial: { title: { en: 'Hi there' }, description: { en: 'New source', es: 'A mano' } } });
    await s.api.patch(`/v1/projects/${s.projectId}`, { locales: ['en', 'es'] });
    await emulator.drain();
    const again = (await s.api.get(`/v1/pages/${page.id}`)).body;
    expect(again.editorial.title).toEqual({ en: 'Hi there', es: '[es] Hi there' });
    expect(again.editorial.description).toEqual({ en: 'New source', es: 'A mano' });
  });

  it('a new page source language is generated from the other language', async () => {
    const s = await site(emulator, { locales: ['en', 'es'] });
    const page = await s.doc('/', { body: { en: 'Hello' }, seo: { title: { en: 'Home', es: 'Inicio' } } });
    const res = await s.api.patch(`/v1/pages/${page.id}`, { defaultLocale: 'es' });
    expect(res.body.defaultLocale).toBe('es');
    await emulator.drain();
    const got = (await s.api.get(`/v1/pages/${page.id}`)).body;
    expect(got.body).toEqual({ en: 'Hello', es: '[es] Hello' });
    expect(got.seo.title).toEqual({ en: 'Home', es: 'Inicio' });
  });
});

describe('a translator of your own', () => {
  it('is used through createEmulator({ translator }), and never overwrites what the owner writes meanwhile', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const called = new Promise<void>((resolve) => (started = resolve));
    const calls: { texts: string[]; from: string; to: string }[] = [];
    const translator: Translator = {
      async translate(texts, from, to) {
        calls.push({ texts, from, to });
        started();
        await gate;
        return texts.map((t) => `${t.toUpperCase()} (${from}→${to})`);
      },
    };
    const own = await fileEmulator({ translator });
    const s = await site(own);
    const page = await s.agentPage('/', { editorial: { title: { en: 'Hello' }, badge: { en: 'New' } } });
    await s.api.patch(`/v1/projects/${s.projectId}`, { locales: ['en', 'es'] });
    await called;
    // While the translator works, the owner writes the Spanish title.
    await s.api.patch(`/v1/pages/${page.id}`, { editorial: { title: { es: 'Hola, escrito a mano' } } });
    release();
    await own.drain();
    expect(calls).toEqual([{ texts: ['New', 'Hello'], from: 'en', to: 'es' }]);
    const got = (await s.api.get(`/v1/pages/${page.id}`)).body;
    expect(got.editorial.badge).toEqual({ en: 'New', es: 'NEW (en→es)' });
    expect(got.editorial.title).toEqual({ en: 'Hello', es: 'Hola, escrito a mano' });
  });

  it('writes nothing when the site stops serving the language, or is deleted, while it translates (D-1131)', async () => {
    let release!: () => void;
    let started!: () => void;
    const translator: Translator = {
      async translate(texts) {
        started();
        await new Promise<void>((resolve) => (release = resolve));
        return texts.map((t) => t.toUpperCase());
      },
    };
    const own = await fileEmulator({ translator });
    for (const change of ['locales', 'deletion'] as const) {
      const s = await site(own);
      const page = await s.doc('/about', { body: { en: 'About us' } });
      const called = new Promise<void>((resolve) => (started = resolve));
      await s.api.patch(`/v1/projects/${s.projectId}`, { locales: ['en', 'es'] });
      await called;
      if (change === 'locales') expect((await s.api.patch(`/v1/projects/${s.projectId}`, { locales: ['en'] })).status).toBe(200);
      else expect((await s.api.delete(`/v1/projects/${s.projectId}`)).status).toBe(200);
      release();
      await own.drain();
      const got = await s.api.get(`/v1/pages/${page.id}`);
      if (change === 'locales') expect(got.body.body).toEqual({ en: 'About us', es: '' });
      else expect(got.status).toBe(404);
    }
  });
});

describe('llmsTxt', () => {
  it('is regenerated from the published pages when a page is published, unpublished, edited live or deleted', async () => {
    const s = await site(emulator);
    const root = await s.agentPage('/', { editorial: { title: { en: 'Acme assistant' } }, seo: { description: { en: 'Ask Acme anything' } } });
    const pricing = await s.doc('/pricing', { body: { en: 'Prices' }, seo: { title: { en: 'Pricing' }, description: { en: 'What it costs' } } });
    await s.doc('/draft', { body: { en: 'Not yet' } });
    const before = (await s.api.get(`/v1/projects/${s.projectId}`)).body.llmsTxt;

    await emulator.clock.advance(1000);
    await s.api.post(`/v1/pages/${root.id}/publish`);
    await s.api.post(`/v1/pages/${pricing.id}/publish`);
    const live = (await s.api.get(`/v1/projects/${s.projectId}`)).body.llmsTxt;
    expect(Date.parse(live.generatedAt)).toBeGreaterThan(Date.parse(before.generatedAt));
    expect(live.text).toBe(
      ['# Site', '', '> Ask Acme anything', '', '## Pages', '', '- [Acme assistant](/): Ask Acme anything', '- [Pricing](/pricing): What it costs', ''].join(
        '\n',
      ),
    );
    expect(live.text).not.toContain('/draft');

    await s.api.patch(`/v1/pages/${pricing.id}`, { seo: { title: { en: 'Plans' } } });
    expect((await s.api.get(`/v1/projects/${s.projectId}`)).body.llmsTxt.text).toContain('- [Plans](/pricing): What it costs');
    await s.api.post(`/v1/pages/${pricing.id}/unpublish`);
    expect((await s.api.get(`/v1/projects/${s.projectId}`)).body.llmsTxt.text).not.toContain('/pricing');
    await s.api.post(`/v1/pages/${pricing.id}/publish`);
    await s.api.delete(`/v1/pages/${pricing.id}`);
    const after = (await s.api.get(`/v1/projects/${s.projectId}`)).body.llmsTxt.text;
    expect(after).not.toContain('/pricing');
    expect(after).toContain('- [Acme assistant](/)');
  });

  it('links each language to the address that serves it, when the page and the site differ in default (D-1104)', async () => {
    const s = await site(emulator, { locales: ['en', 'es'], defaultLocale: 'en' });
    const root = await s.doc('/', { defaultLocale: 'en', body: { en: 'x', es: 'y' }, seo: { title: { en: 'English title', es: 'Título español' } } });
    await s.api.post(`/v1/pages/${root.id}/publish`);
    await s.api.patch(`/v1/projects/${s.projectId}`, { defaultLocale: 'es' });
    const text: string = (await s.api.get(`/v1/projects/${s.projectId}`)).body.llmsTxt.text;
    // The page's own language (English) is what `/` serves; Spanish needs ?lang=es.
    expect(text).toContain('## Pages\n\n- [Título español](/?lang=es)\n');
    expect(text).toContain('## Pages (en)\n\n- [English title](/)\n');
  });

  it('lists each served language, translated pages included', async () => {
    const s = await site(emulator);
    const root = await s.doc('/', { body: { en: 'x' }, seo: { title: { en: 'Home' }, description: { en: 'Welcome' } } });
    await s.api.post(`/v1/pages/${root.id}/publish`);
    await s.api.patch(`/v1/projects/${s.projectId}`, { locales: ['en', 'es'] });
    await emulator.drain();
    const text: string = (await s.api.get(`/v1/projects/${s.projectId}`)).body.llmsTxt.text;
    expect(text).toContain('## Pages\n\n- [Home](/): Welcome\n');
    expect(text).toContain('## Pages (es)\n\n- [\\[es\\] Home](/?lang=es): [es] Welcome\n');
    await s.api.patch(`/v1/projects/${s.projectId}`, { locales: ['en'] });
    expect((await s.api.get(`/v1/projects/${s.projectId}`)).body.llmsTxt.text).not.toContain('(es)');
  });
});
