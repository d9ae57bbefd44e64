import { describe, expect, it } from 'vitest';
import { fetchFile } from '../assets/support.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { cleanSvgs, fileForm, hostileSvgs, newSite } from './support.js';

const emulator = await fileEmulator({ seed: 66 });
const { api } = await workspace(emulator);
const hostile = hostileSvgs();
const clean = cleanSvgs();
const encode = (text: string) => new TextEncoder().encode(text);

describe('the SVG corpus', () => {
  it('holds at least 30 hostile SVGs, each with its reasons and source, and at least 10 clean ones', () => {
    expect(hostile.length).toBeGreaterThanOrEqual(30);
    expect(clean.length).toBeGreaterThanOrEqual(10);
    for (const h of hostile) {
      expect(h.reasons.length, h.file).toBeGreaterThan(0);
      expect(h.source, h.file).not.toBe('');
    }
  });
});

describe('hostile SVGs are refused with 400 svc.brand.svg_rejected, one entry per reason', () => {
  it.each(hostile.map((h) => [h.file, h] as const))('%s', async (_file, h) => {
    const site = await newSite(api);
    const before = (await api.get(`/v1/projects/${site}/brand`)).body;
    for (const slot of ['logo', 'favicon']) {
      const res = await api.put(`/v1/projects/${site}/brand/${slot}`, fileForm(h.bytes, 'logo.svg'));
      expect(res.status, res.text).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body.code).toBe('svc.brand.svg_rejected');
      expect(res.body.errors.map((e: { reason: string }) => e.reason).sort()).toEqual([...h.reasons].sort());
      for (const entry of res.body.errors) expect(entry).toEqual({ field: 'file', reason: expect.any(String), line: expect.any(Number) });
    }
    expect((await api.get(`/v1/projects/${site}/brand`)).body).toEqual(before);
  });

  it('names each reason once, in document order, with the line it first appears on', async () => {
    const site = await newSite(api);
    const everything = hostile.find((h) => h.file.startsWith('47-'))!;
    const res = await api.put(`/v1/projects/${site}/brand/logo`, fileForm(everything.bytes));
    expect(res.body.errors).toEqual([
      { field: 'file', reason: 'DOCTYPE or entity', line: 2 },
      { field: 'file', reason: 'xml-stylesheet', line: 3 },
      { field: 'file', reason: 'event handler attribute', line: 4 },
      { field: 'file', reason: 'script element', line: 5 },
      { field: 'file', reason: 'foreign content', line: 7 },
      { field: 'file', reason: 'javascript: URL', line: 8 },
      { field: 'file', reason: 'external reference', line: 9 },
    ]);
  });

  it('a refused SVG leaves the logo in place', async () => {
    const site = await newSite(api);
    const kept = (await api.put(`/v1/projects/${site}/brand/logo`, fileForm(clean[0]!.bytes))).body.logo;
    expect((await api.put(`/v1/projects/${site}/brand/logo`, fileForm(hostile[0]!.bytes))).status).toBe(400);
    const after = (await api.get(`/v1/projects/${site}/brand`)).body.logo;
    expect(after.byteSize).toBe(kept.byteSize);
    expect((await fetchFile(emulator, after.url)).bytes).toEqual(clean[0]!.bytes);
  });
});

describe('clean SVGs are taken and served as they came', () => {
  it.each(clean.map((c) => [c.file, c] as const))('%s', async (_file, c) => {
    const site = await newSite(api);
    const res = await api.put(`/v1/projects/${site}/brand/logo`, fileForm(c.bytes, 'logo.svg'));
    expect(res.status, res.text).toBe(200);
    expect(res.body.logo).toMatchObject({ contentType: 'image/svg+xml', byteSize: c.bytes.byteLength });
    const file = await fetchFile(emulator, res.body.logo.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/svg+xml');
    expect(file.headers.get('content-security-policy')).toContain('sandbox');
    expect(file.bytes).toEqual(c.bytes);
  });
});

describe('text that is not a readable SVG is 415 svc.brand.format_unsupported', () => {
  it.each([
    ['not well-formed', '<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>'],
    ['an undeclared prefix', '<svg xmlns="http://www.w3.org/2000/svg"><use xlink:href="#a"/></svg>'],
    ['no SVG namespace', '<svg viewBox="0 0 1 1"><rect width="1" height="1"/></svg>'],
    ['an HTML page', '<html><body><p>hello</p></body></html>'],
    ['another XML root', '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"/>'],
    ['an undefined entity', '<svg xmlns="http://www.w3.org/2000/svg"><text>&nbsp;</text></svg>'],
    ['two roots', '<svg xmlns="http://www.w3.org/2000/svg"/><svg xmlns="http://www.w3.org/2000/svg"/>'],
    ['plain text', 'just a logo, honest'],
    // Read in milliseconds, not the worker's 30 s (D-1086).
    ['elements nested 200,000 deep', `<svg xmlns="http://www.w3.org/2000/svg">${'<g>'.repeat(200_000)}${'</g>'.repeat(200_000)}</svg>`],
  ])('%s', async (_label, text) => {
    const site = await newSite(api);
    const res = await api.put(`/v1/projects/${site}/brand/logo`, fileForm(encode(text)));
    expect(res.status, res.text).toBe(415);
    expect(res.body.code).toBe('svc.brand.format_unsupported');
    expect(res.body.errors[0].field).toBe('file');
    expect((await api.get(`/v1/projects/${site}/brand`)).body.logo).toBeNull();
  });

  it('bytes that are not UTF-8 text', async () => {
    const site = await newSite(api);
    const bytes = Uint8Array.from([0x3c, 0x73, 0x76, 0x67, 0xff, 0xfe, 0x3e]);
    const res = await api.put(`/v1/projects/${site}/brand/logo`, fileForm(bytes));
    expect(res.status).toBe(415);
  });

  it('a drawing nested as deep as drawing tools nest is read', async () => {
    const site = await newSite(api);
    const text = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1">${'<g>'.repeat(200)}<rect width="1" height="1"/>${'</g>'.repeat(200)}</svg>`;
    expect((await api.put(`/v1/projects/${site}/brand/logo`, fileForm(encode(text)))).status).toBe(200);
  });

  it('UTF-16 with a byte order mark is read', async () => {
    const site = await newSite(api);
    const text = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><rect width="1" height="1"/></svg>';
    const bytes = new Uint8Array(2 + text.length * 2);
    bytes.set([0xff, 0xfe]);
    for (let i = 0; i < text.length; i++) bytes[2 + i * 2] = text.charCodeAt(i);
    const res = await api.put(`/v1/projects/${site}/brand/logo`, fileForm(bytes));
    expect(res.status, res.text).toBe(200);
    expect(res.body.logo.contentType).toBe('image/svg+xml');
  });
});
