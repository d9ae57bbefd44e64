import { describe, expect, it } from 'vitest';
import { fetchFile, fixture } from '../assets/support.js';
import { send } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';
import { cleanSvgs, fileForm, newSite } from './support.js';

const emulator = await fileEmulator({ seed: 67 });
const doc = (await send(emulator, 'GET', '/v1/openapi.json')).body;
const svg = cleanSvgs()[0]!.bytes;
const link = (en: string, href: string, es = en) => ({ label: { es, en }, href });

describe('GET /v1/projects/{projectId}/brand', () => {
  it('an untouched site has empty slots, an empty navbar and footer, and no updatedAt', async () => {
    const { api } = await workspace(emulator);
    const site = await newSite(api);
    const res = await api.get(`/v1/projects/${site}/brand`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      logo: null,
      logoDark: null,
      favicon: null,
      navbar: { links: [], cta: null },
      footer: { text: { es: '', en: '' }, links: [] },
      updatedAt: null,
    });
    expectMatchesOpenApi(doc, 'GET', '/v1/projects/{projectId}/brand', 200, res.body);
  });

  it('a site of another workspace, or none, is 404 svc.project.not_found on every brand route', async () => {
    const owner = await workspace(emulator);
    const site = await newSite(owner.api);
    const { api } = await workspace(emulator);
    for (const id of [site, 'prj_missing']) {
      for (const res of [
        await api.get(`/v1/projects/${id}/brand`),
        await api.patch(`/v1/projects/${id}/brand`, { footer: { text: { en: 'x' } } }),
        await api.put(`/v1/projects/${id}/brand/logo`, fileForm(fixture('image.png'))),
        await api.delete(`/v1/projects/${id}/brand/logo`),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('svc.project.not_found');
      }
    }
    expect((await owner.api.get(`/v1/projects/${site}/brand`)).body.logo).toBeNull();
  });
});

describe('PUT and DELETE /v1/projects/{projectId}/brand/{slot}', () => {
  it('fills each slot with what it takes and serves the bytes by a signed URL', async () => {
    const { api } = await workspace(emulator);
    const site = await newSite(api);
    const logo = await api.put(`/v1/projects/${site}/brand/logo`, fileForm(fixture('image.png'), 'logo.jpg'));
    expect(logo.status).toBe(200);
    expect(logo.body.logo).toEqual({
      contentType: 'image/png',
      byteSize: fixture('image.png').byteLength,
      url: expect.stringMatching(/^http:\/\/localhost\/files\/ast_[0-9a-z]{26}\?expires=\d+&signature=/),
      urlExpiresAt: expect.any(String),
    });
    expectMatchesOpenApi(doc, 'PUT', '/v1/projects/{projectId}/brand/{slot}', 200, logo.body);
    const dark = await api.put(`/v1/projects/${site}/brand/logo-dark`, fileForm(fixture('image.jpg')));
    const favicon = await api.put(`/v1/projects/${site}/brand/favicon`, fileForm(fixture('favicon.ico')));
    expect(dark.body.logoDark.contentType).toBe('image/jpeg');
    expect(favicon.body.favicon.contentType).toBe('image/x-icon');
    const brand = (await api.get(`/v1/projects/${site}/brand`)).body;
    expect([brand.logo.contentType, brand.logoDark.contentType, brand.favicon.contentType]).toEqual(['image/png', 'image/jpeg', 'image/x-icon']);
    for (const [slot, name] of [
      ['logo', 'image.png'],
      ['logoDark', 'image.jpg'],
      ['favicon', 'favicon.ico'],
    ] as const) {
      const file = await fetchFile(emulator, brand[slot].url);
      expect(file.bytes).toEqual(fixture(name));
      expect(file.headers.get('content-type')).toBe(brand[slot].contentType);
    }
    expect((await api.put(`/v1/projects/${site}/brand/favicon`, fileForm(fixture('image.webp')))).body.favicon.contentType).toBe('image/webp');
    expect((await api.put(`/v1/projects/${site}/brand/logo-dark`, fileForm(svg))).body.logoDark.contentType).toBe('image/svg+xml');
  });

  it.each([
    ['logo', 'favicon.ico', 'ICO is for the favicon only'],
    ['logo-dark', 'favicon.ico', 'ICO is for the favicon only'],
    ['logo', 'image.gif', 'GIF'],
    ['favicon', 'image.gif', 'GIF'],
    ['logo', 'image.avif', 'AVIF'],
    ['favicon', 'video-2s.mp4', 'a video'],
    ['logo', 'not-an-image.png', 'text named .png'],
    ['logo', 'truncated.png', 'a truncated PNG'],
  ])('the %s slot refuses %s (%s) with 415 naming the file, and keeps what it had', async (slot, name) => {
    const { api } = await workspace(emulator);
    const site = await newSite(api);
    await api.put(`/v1/projects/${site}/brand/${slot}`, fileForm(fixture('image.webp')));
    const before = (await api.get(`/v1/projects/${site}/brand`)).body;
    const res = await api.put(`/v1/projects/${site}/brand/${slot}`, fileForm(fixture(name), 'logo.png'));
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('svc.brand.format_unsupported');
    expect(res.body.errors).toEqual([{ field: 'file', reason: expect.stringContaining(`the ${slot} slot takes`) }]);
    expect((await api.get(`/v1/projects/${site}/brand`)).body).toEqual(before);
  });

  it('a favicon ICO is judged whole: every image inside it decodes and the file ends with the last one (D-1178)', async () => {
    const { api } = await workspace(emulator);
    const site = await newSite(api);
    /** An icon directory of one entry holding `image` (its offset and size as given, else where it lies). */
    const icon = (image: Uint8Array, { type = 1, size = image.length, offset = 22, tail = new Uint8Array(0) } = {}) => {
      const head = Buffer.alloc(22);
      head.writeUInt16LE(0, 0);
      head.writeUInt16LE(type, 2);
      head.writeUInt16LE(1, 4);
      head.writeUInt8(32, 6);
      head.writeUInt8(32, 7);
      head.writeUInt16LE(1, 10);
      head.writeUInt16LE(32, 12);
      head.writeUInt32LE(size, 14);
      head.writeUInt32LE(offset, 18);
      return new Uint8Array(Buffer.concat([head, image, tail]));
    };
    const pngInside = icon(fixture('image.png'));
    const ok = await api.put(`/v1/projects/${site}/brand/favicon`, fileForm(pngInside, 'favicon.ico'));
    expect([ok.status, ok.body.favicon?.contentType]).toEqual([200, 'image/x-icon']);
    const before = (await api.get(`/v1/projects/${site}/brand`)).body;
    const bitmap = fixture('favicon.ico').subarray(22);
    const refused: [string, Uint8Array][] = [
      ['an entry past the end, then a page', icon(new TextEncoder().encode('<script>alert(1)</script>'), { size: 4096 })],
      ['a truncated PNG inside', icon(fixture('truncated.png'))],
      ['a PNG inside with a page after the icon', icon(fixture('image.png'), { tail: new TextEncoder().encode('<html>') })],
      ['a bitmap cut short', icon(bitmap.subarray(0, bitmap.length - 200))],
      ['a cursor, not an icon', icon(fixture('image.png'), { type: 2 })],
      ['an entry inside the directory', icon(fixture('image.png'), { offset: 6 })],
    ];
    for (const [what, bytes] of refused) {
      const res = await api.put(`/v1/projects/${site}/brand/favicon`, fileForm(bytes, 'favicon.ico'));
      expect([res.status, res.body.code], what).toEqual([415, 'svc.brand.format_unsupported']);
      expect(res.body.errors[0].reason, what).toMatch(/^the image is not complete \(.+\); the favicon slot takes PNG, JPEG, WebP, SVG or ICO$/);
    }
    expect((await api.get(`/v1/projects/${site}/brand`)).body).toEqual(before);
  });

  it('replacing a file gives it a new URL; the old URL stops serving', async () => {
    const { api } = await workspace(emulator);
    const site = await newSite(api);
    const first = (await api.put(`/v1/projects/${site}/brand/logo`, fileForm(fixture('image.png')))).body.logo;
    const second = (await api.put(`/v1/projects/${site}/brand/logo`, fileForm(fixture('image.jpg')))).body.logo;
    expect(new URL(second.url).pathname).not.toBe(new URL(first.url).pathname);
    expect((await fetchFile(emulator, second.url)).bytes).toEqual(fixture('image.jpg'));
    const gone = await fetchFile(emulator, first.url);
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('svc.asset.not_found');
  });

  it('DELETE empties a slot; an empty slot is 404 svc.brand.not_found', async () => {
    const { api } = await workspace(emulator);
    const site = await newSite(api);
    const put = (await api.put(`/v1/projects/${site}/brand/favicon`, fileForm(fixture('favicon.ico')))).body;
    const res = await api.delete(`/v1/projects/${site}/brand/favicon`);
    expect(res.status).toBe(200);
    expect(res.body.favicon).toBeNull();
    expectMatchesOpenApi(doc, 'DELETE', '/v1/projects/{projectId}/brand/{slot}', 200, res.body);
    expect((await fetchFile(emulator, put.favicon.url)).status).toBe(404);
    for (const slot of ['favicon', 'logo']) {
      const again = await api.delete(`/v1/projects/${site}/brand/${slot}`);
      expect(again.status).toBe(404);
      expect(again.body.code).toBe('svc.brand.not_found');
    }
  });

  it('an unknown slot is 400 svc.brand.invalid naming it', async () => {
    const { api } = await workspace(emulator);
    const site = await newSite(api);
    for (const res of [
      await api.put(`/v1/projects/${site}/brand/banner`, fileForm(fixture('image.png'))),
      await api.delete(`/v1/projects/${site}/brand/Logo`),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('svc.brand.invalid');
      expect(res.body.errors).toEqual([{ field: 'slot', reason: 'must be logo, logo-dark or favicon' }]);
    }
  });

  it('a missing file or an unknown field is 400 svc.brand.invalid', async () => {
    const { api } = await workspace(emulator);
    const site = await newSite(api);
    const empty = new FormData();
    empty.set('note', 'x');
    const res = await api.put(`/v1/projects/${site}/brand/logo`, empty);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('svc.brand.invalid');
    expect(res.body.errors).toEqual([
      { field: 'file', reason: 'required' },
      { field: 'note', reason: 'unknown field' },
    ]);
  });

  it('the file URL expires after 15 minutes of emulated time', async () => {
    const { api } = await workspace(emulator);
    const site = await newSite(api);
    const logo = (await api.put(`/v1/projects/${site}/brand/logo`, fileForm(fixture('image.png')))).body.logo;
    await emulator.clock.advance(15 * 60_000);
    const res = await fetchFile(emulator, logo.url);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('svc.auth.forbidden');
    const fresh = (await api.get(`/v1/projects/${site}/brand`)).body.logo;
    expect((await fetchFile(emulator, fresh.url)).status).toBe(200);
  });
});

describe('PATCH /v1/projects/{projectId}/brand', () => {
  it('merges navbar and footer: absent fields stay, lists and the CTA are replaced whole', async () => {
    const { api } = await workspace(emulator);
    const site = await newSite(api);
    const links = [link('Menu', '/menu', 'Carta'), link('Contact', 'mailto:hola@example.com', 'Contacto')];
    const first = await api.patch(`/v1/projects/${site}/brand`, { navbar: { links, cta: link('Book', 'https://book.example.com/', 'Reservar') } });
    expect(first.status).toBe(200);
    expect(first.body.navbar).toEqual({ links, cta: link('Book', 'https://book.example.com/', 'Reservar') });
    expectMatchesOpenApi(doc, 'PATCH', '/v1/projects/{projectId}/brand', 200, first.body);
    const footer = await api.patch(`/v1/projects/${site}/brand`, {
      footer: { text: { es: '© Ñandú Café', en: '© Nandu Cafe' }, links: [link('Privacy', '/privacy', 'Privacidad')] },
    });
    expect(footer.body.navbar).toEqual(first.body.navbar);
    const en = await api.patch(`/v1/projects/${site}/brand`, { footer: { text: { en: '© Nandu Coffee' } } });
    expect(en.body.footer).toEqual({ text: { es: '© Ñandú Café', en: '© Nandu Coffee' }, links: [link('Privacy', '/privacy', 'Privacidad')] });
    const noCta = await api.patch(`/v1/projects/${site}/brand`, { navbar: { cta: null } });
    expect(noCta.body.navbar).toEqual({ links, cta: null });
    const oneLink = await api.patch(`/v1/projects/${site}/brand`, { navbar: { links: [link('Home', '#top', 'Inicio')] } });
    expect(oneLink.body.navbar.links).toEqual([link('Home', '#top', 'Inicio')]);
    expect((await api.get(`/v1/projects/${site}/brand`)).body).toEqual(oneLink.body);
  });

  it('updatedAt follows every change, not an empty patch', async () => {
    const { api } = await workspace(emulator);
    const site = await newSite(api);
    const first = (await api.patch(`/v1/projects/${site}/brand`, { footer: { text: { en: 'a' } } })).body.updatedAt;
    expect(first).toBe(new Date(emulator.clock.now()).toISOString());
    await emulator.clock.advance(1000);
    expect((await api.patch(`/v1/projects/${site}/brand`, {})).body.updatedAt).toBe(first);
    const second = (await api.put(`/v1/projects/${site}/brand/logo`, fileForm(fixture('image.png')))).body.updatedAt;
    expect(Date.parse(second) - Date.parse(first)).toBe(1000);
  });

  it.each([
    [{ navbar: { links: [link('x', 'javascript:alert(1)')] } }, 'navbar.links.0.href'],
    [{ navbar: { links: [link('x', ' JavaScript:alert(1)')] } }, 'navbar.links.0.href'],
    [{ navbar: { links: [link('x', 'data:text/html,hi')] } }, 'navbar.links.0.href'],
    [{ navbar: { links: [link('x', '//evil.example/')] } }, 'navbar.links.0.href'],
    // Paths a browser reads as another host (WHATWG URL: `\` is `/` in http URLs).
    [{ navbar: { links: [link('x', '/\\evil.example/')] } }, 'navbar.links.0.href'],
    [{ navbar: { links: [link('ok', '/menu'), link('x', '/\\/evil.example')] } }, 'navbar.links.1.href'],
    [{ navbar: { links: [link('x', '\\/evil.example/')] } }, 'navbar.links.0.href'],
    [{ navbar: { links: [link('x', '/\\\\evil.example/')] } }, 'navbar.links.0.href'],
    [{ navbar: { links: [link('x', '/\t/evil.example/')] } }, 'navbar.links.0.href'],
    [{ navbar: { cta: link('x', '/\\evil.example/book') } }, 'navbar.cta.href'],
    [{ footer: { links: [link('x', '/\\evil.example/')] } }, 'footer.links.0.href'],
    [{ navbar: { links: [link('x', 'https://ok.example/ has space')] } }, 'navbar.links.0.href'],
    [{ navbar: { cta: link('x', 'ftp://files.example/') } }, 'navbar.cta.href'],
    [{ navbar: { links: [{ label: { es: '', en: '' }, href: '/' }] } }, 'navbar.links.0.label'],
    [{ navbar: { links: [{ label: { en: 'Only' }, href: '/' }] } }, 'navbar.links.0.label.es'],
    [{ navbar: { links: [link('x'.repeat(81), '/')] } }, 'navbar.links.0.label.es'],
    [{ navbar: { links: Array.from({ length: 9 }, (_, i) => link(`L${i}`, `/l${i}`)) } }, 'navbar.links'],
    [{ footer: { links: Array.from({ length: 13 }, (_, i) => link(`L${i}`, `/l${i}`)) } }, 'footer.links'],
    [{ footer: { text: { en: 'x'.repeat(501) } } }, 'footer.text.en'],
    [{ footer: { text: { fr: 'bonjour' } } }, 'footer.text.fr'],
    [{ theme: {} }, 'theme'],
    [{ navbar: 'top' }, 'navbar'],
    [{ navbar: [] }, 'navbar'],
    [{ footer: { text: [] } }, 'footer.text'],
    [{ navbar: { links: [[]] } }, 'navbar.links.0'],
  ])('refuses %j with 400 svc.brand.invalid naming %s, changing nothing', async (body, field) => {
    const { api } = await workspace(emulator);
    const site = await newSite(api);
    const res = await api.patch(`/v1/projects/${site}/brand`, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('svc.brand.invalid');
    expect(res.body.errors[0].field).toBe(field);
    expect((await api.get(`/v1/projects/${site}/brand`)).body.updatedAt).toBeNull();
  });

  it('takes paths that stay on the site however they are spelled', async () => {
    const { api } = await workspace(emulator);
    const site = await newSite(api);
    const hrefs = ['/', '/menu?x=1#y', '/%5Cevil.example/', '/%2F%2Fevil.example', '/a/../b', '#top', 'https://evil.example/', 'http:\\\\partner.example/'];
    const res = await api.patch(`/v1/projects/${site}/brand`, { footer: { links: hrefs.map((href, i) => link(`L${i}`, href)) } });
    expect(res.status).toBe(200);
    expect(res.body.footer.links.map((l: { href: string }) => l.href)).toEqual(hrefs);
  });

  it('takes 8 navbar and 12 footer links, 80-character labels and 500-character footer text', async () => {
    const { api } = await workspace(emulator);
    const site = await newSite(api);
    const res = await api.patch(`/v1/projects/${site}/brand`, {
      navbar: { links: Array.from({ length: 8 }, (_, i) => link(`L${i}`, `https://example.com/${i}`)), cta: link('x'.repeat(80), 'tel:+34600000000') },
      footer: { text: { es: 'x'.repeat(500), en: '' }, links: Array.from({ length: 12 }, (_, i) => link(`F${i}`, `/f${i}`)) },
    });
    expect(res.status).toBe(200);
    expect(res.body.navbar.links).toHaveLength(8);
    expect(res.body.footer.links).toHaveLength(12);
  });
});

describe('scopes and the life of a brand', () => {
  it('brand:read reads, brand:write writes; neither implies the other', async () => {
    const writer = await workspace(emulator, { scopes: ['brand:write', 'projects:write'] });
    const site = await newSite(writer.api);
    expect((await writer.api.patch(`/v1/projects/${site}/brand`, { footer: { text: { en: 'x' } } })).status).toBe(200);
    const read = await writer.api.get(`/v1/projects/${site}/brand`);
    expect(read.status).toBe(403);
    expect(read.body.code).toBe('svc.api_key.scope_missing');
    const reader = await workspace(emulator, { scopes: ['brand:read', 'projects:write'] });
    const own = await newSite(reader.api);
    for (const res of [
      await reader.api.patch(`/v1/projects/${own}/brand`, { footer: { text: { en: 'x' } } }),
      await reader.api.put(`/v1/projects/${own}/brand/logo`, fileForm(fixture('image.png'))),
      await reader.api.delete(`/v1/projects/${own}/brand/logo`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('svc.api_key.scope_missing');
    }
  });

  it('deleting the site deletes its brand and its files', async () => {
    const { api } = await workspace(emulator);
    const site = await newSite(api);
    const logo = (await api.put(`/v1/projects/${site}/brand/logo`, fileForm(fixture('image.png')))).body.logo;
    await api.patch(`/v1/projects/${site}/brand`, { footer: { text: { en: 'bye' } } });
    expect((await api.delete(`/v1/projects/${site}`)).body).toEqual({ projectId: site, pagesDeleted: 0 });
    expect((await fetchFile(emulator, logo.url)).status).toBe(404);
    const state = await emulator.exportState();
    for (const table of ['brands', 'brand_files']) {
      expect(
        (state.tables[table] as { project_id: string }[]).some((r) => r.project_id === site),
        table,
      ).toBe(false);
    }
  });
});
