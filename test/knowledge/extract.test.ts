import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownBlockTokens } from '../../src/knowledge/pipeline/chunk.js';
import { extractText } from '../../src/knowledge/pipeline/extract.js';
import { formatOfResponse } from '../../src/knowledge/ingest-writes.js';
import { declaredCharset, decodeText, detectUploadFormat } from '../../src/knowledge/pipeline/formats.js';
import { IngestError } from '../../src/knowledge/pipeline/ingest-error.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'knowledge');
const bytes = (text: string) => new TextEncoder().encode(text);

async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IngestError);
  return (error as IngestError).code;
}

describe('text extraction', () => {
  it('keeps Markdown and plain text as written, line endings normalised', async () => {
    expect((await extractText('markdown', bytes('# Title\r\n\r\nBody text.\r\n'))).text).toBe('# Title\n\nBody text.');
    expect((await extractText('text', bytes('\uFEFFplain words'))).text).toBe('plain words');
  });

  it('reads HTML through a parser: main content as Markdown, no navigation, scripts, styles or chrome', async () => {
    const html = `<!doctype html><html><head><title> Opening hours | Café Luna </title><style>p { color: red }</style>
      <script>window.secret = "tracking";</script></head><body>
      <header><a href="/">Home</a> <a href="/menu">Menu</a></header>
      <nav><ul><li><a href="/a">About us</a></li><li><a href="/b">Careers</a></li></ul></nav>
      <main><article><h1>Opening hours</h1><p>We open <a href="/x">every weekday</a> from 9 to 18.</p>
      <h2>Holidays</h2><ul><li>Closed on 25 December</li><li>Closed on 1 January</li></ul>
      <img src="/map.png" alt="Map of the street"><script>document.write("injected")</script><noscript>Enable JS</noscript></article></main>
      <aside>Subscribe to our newsletter</aside><footer>© 2026 Café Luna · Privacy</footer></body></html>`;
    const { text, title } = await extractText('html', bytes(html));
    expect(title).toBe('Opening hours | Café Luna');
    expect(text).toContain('We open every weekday from 9 to 18.');
    expect(text).toMatch(/^#+ Holidays$/m);
    expect(text).toMatch(/^- +Closed on 25 December$/m);
    expect(text).toContain('Map of the street');
    for (const gone of ['tracking', 'injected', 'color', 'Careers', 'About us', 'Subscribe', 'Privacy', 'Enable JS', '/x', 'map.png'])
      expect(text).not.toContain(gone);
  });

  it('keeps both a table of links and the prose around it, which Readability alone would cut to the table', async () => {
    const row = (p: string, i: number) => `
      <tr>
        <td><a class="ulink" href="http://packages.example.org/${p}"> <code class="literal">${p}</code> </a></td>
        <td><a class="ulink" href="http://popcon.example.org/${p}">V:${i}, I:${i * 7}</a></td>
        <td> "<code class="literal">info ${p}</code>" provided by <code class="literal">${p}-doc</code> </td>
      </tr>`;
    // A DocBook page: the table sits inside a named anchor.
    const html = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"/><title>12.5. Debug</title></head><body><main>
      <h2>12.5. Debug</h2>
      <p>Tracing a crashing program is a skill of its own.  A developer who can read a backtrace writes bug reports that maintainers can act upon.</p>
      <div class="table">
        <a id="listofdebugpackages">
        <p class="title"><strong>Table&#160;12.13.&#160;List of debug packages</strong></p>
        <div class="table-contents"><table class="table" border="1">
          <thead><tr><th> package </th><th> popcon </th><th> documentation </th></tr></thead>
          <tbody>${['gdb', 'ddd', 'valgrind', 'strace'].map(row).join('')}</tbody>
        </table></div>
        </a>
      </div></main></body></html>`;
    const { text } = await extractText('html', bytes(html));
    expect(text).toMatch(/^## 12\.5\. Debug$/m);
    expect(text).toContain('A developer who can read a backtrace writes bug reports');
    expect(text).toContain('List of debug packages');
    for (const name of ['`gdb`', '`valgrind`', '`strace-doc`']) expect(text).toContain(name);
  });

  it('reads a page that marks no main content as the same page with its content in <main> (D-1199): line endings as a browser reads them', async () => {
    const row = (p: string) =>
      `<tr><td><a href="https://packages.example.org/${p}"><code>${p}</code></a></td><td>${p} is a debugger of its own kind.</td></tr>`;
    const content = `<h2>12.5. Debug</h2>\r\n<p>A developer who can read a backtrace writes bug reports that <a href="#maint">maintainers</a> can act upon.</p>\r\n
      <a id="debugpackages"><p class="title"><strong>Table 12.13. List of <a href="https://example.org/debug">debug</a> packages</strong></p></a>
      <table><thead><tr><th>package</th><th>what it is</th></tr></thead><tbody>${['gdb', 'valgrind', 'strace'].map(row).join('')}</tbody></table>
      <pre class="screen">\r\n\r\n$ gdb -p 1234\r\n(gdb) bt\r\n</pre>`;
    const page = (body: string) => `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"/><title>12.5. Debug</title></head><body>${body}</body></html>`;
    const marked = await extractText('html', bytes(page(`<main>${content}</main>`)));
    const unmarked = await extractText('html', bytes(page(content)));
    expect(unmarked).toEqual(marked);
    expect(marked.text).not.toContain('\r');
    // The line break right after <pre> is not the code's; the blank line after it is.
    expect(marked.text).toContain('```\n\n$ gdb -p 1234\n(gdb) bt\n```');
    expect(marked.text).toContain('List of debug packages');
  });

  it('refuses a page whose elements nest deeper than a browser parser nests them (512), with or without <main>; 500 deep reads (D-1199)', async () => {
    const page = (depth: number, main: boolean) => {
      const inner = `${'<div>'.repeat(depth)}Rooms are cleaned daily.${'</div>'.repeat(depth)}`;
      return bytes(`<!doctype html><html><body>${main ? `<main>${inner}</main>` : inner}</body></html>`);
    };
    for (const main of [false, true]) {
      expect(await failure(extractText('html', page(600, main)))).toBe('unsupported_document');
      expect((await extractText('html', page(500, main))).text).toBe('Rooms are cleaned daily.');
    }
  });

  it('reads a page with next to no link text whole and as written: no byline dropped, no heading demoted (D-982)', async () => {
    const prose = (topic: string) =>
      `<p>The ${topic} of the server is checked every night by a script that writes its findings to the system log, and an administrator reads them each morning.</p>`;
    const html = `<!doctype html><html><head><title>Server care</title></head><body>
      <div class="page"><div class="byline">By Ann</div>
      <div class="content"><h1>Server care</h1>${['disk', 'memory', 'network', 'backup', 'temperature', 'power supply'].map(prose).join('')}
      <p>Questions go to the <a href="/desk">help desk</a>.</p></div></div></body></html>`;
    const { text } = await extractText('html', bytes(html));
    // Readability would have dropped the byline and made the heading a second-level one.
    expect(text.startsWith('By Ann\n\n# Server care\n\nThe disk of the server')).toBe(true);
    expect(text).toContain('The power supply of the server');
    expect(text.endsWith('Questions go to the help desk.')).toBe(true);
  });

  it('reads a page that marks its main content from its <main>: all of it, and nothing outside it', async () => {
    const html = `<!doctype html><html><head><title>Backups</title></head><body>
      <div class="cookies">We use cookies to improve this site. Accept all cookies?</div>
      <div class="breadcrumbs"><a href="/">Docs</a> / <a href="/admin">Admin</a></div>
      <main><h1>Backups</h1><p>Run the backup every night.</p>
      <div class="related"><a href="/a">Restore</a> <a href="/b">Snapshots</a> <a href="/c">Retention</a></div></main>
      <div>Last edited by the docs team.</div></body></html>`;
    const { text } = await extractText('html', bytes(html));
    expect(text).toBe('# Backups\n\nRun the backup every night.\n\nRestore Snapshots Retention');
  });

  it('reads attribute names written in capitals as a browser does (D-1044): the page gives the text its lowercase twin gives', async () => {
    const page = (attr: (name: string) => string) => `<HTML><HEAD><TITLE>Backups</TITLE></HEAD><BODY>
      <DIV ${attr('class')}="cookies">We use cookies to improve this site. Accept all cookies?</DIV>
      <DIV ${attr('class')}="breadcrumbs"><A ${attr('href')}="/">Docs</A> / <A ${attr('href')}="/admin">Admin</A></DIV>
      <DIV ${attr('class')}="SECT1"><H1>Backups</H1><P>Run the backup every night, then <A ${attr('href')}="/check">check it</A>.</P>
      <IMG ${attr('src')}="/b.png" ${attr('alt')}="The backup dialog"><PRE ${attr('class')}="language-sh">tar czf /backup/home.tgz /home</PRE></DIV>
      </BODY></HTML>`;
    const lower = await extractText('html', bytes(page((n) => n)));
    const upper = await extractText('html', bytes(page((n) => n.toUpperCase())));
    expect(upper).toEqual(lower);
    expect(upper.text).toContain('The backup dialog');
    expect(upper.text).toContain('tar czf /backup/home.tgz /home');
    // The first of two spellings of one attribute is the one kept, as in a browser.
    const twice = await extractText('html', bytes('<main><p>Hi</p><img ALT="first" alt="second"></main>'));
    expect(twice.text).toContain('first');
    expect(twice.text).not.toContain('second');
  });

  it('keeps the text of a short page that Readability would cut', async () => {
    const { text } = await extractText('html', bytes('<html><body><p>Only one line here.</p><div>And a second block.</div></body></html>'));
    expect(text).toContain('Only one line here.');
    expect(text).toContain('And a second block.');
  });

  it('reads CSV with a real parser: one paragraph per row, cells named by their column', async () => {
    const csv = 'plan,price,notes\nBasic,10,"email, chat"\nPro,25,"phone ""priority"""\n\n';
    expect((await extractText('csv', bytes(csv))).text).toBe('plan: Basic; price: 10; notes: email, chat\n\nplan: Pro; price: 25; notes: phone "priority"');
  });

  it('reads JSON as path: value lines, one paragraph per list item or section', async () => {
    const json = JSON.stringify({
      name: 'Luna',
      faq: [
        { q: 'Pets?', a: 'Yes' },
        { q: 'Wifi?', a: 'Free' },
      ],
      hours: { mon: '9-18' },
    });
    expect((await extractText('json', bytes(json))).text).toBe(
      'name: Luna\n\nfaq[0].q: Pets?\nfaq[0].a: Yes\n\nfaq[1].q: Wifi?\nfaq[1].a: Free\n\nhours.mon: 9-18',
    );
  });

  it('reads the text of a PDF with pdf.js, paragraphs where the layout leaves a gap', async () => {
    const { text } = await extractText('pdf', readFileSync(join(FIXTURES, 'warranty.pdf')));
    expect(text).toBe(
      'Warranty and returns\n\nEvery bicycle we sell carries a two-year warranty on the frame.\nThe warranty covers manufacturing defects, not wear and tear.\n\n' +
        'Returns are accepted within thirty days of delivery when the\nbicycle has not been ridden outdoors.\n\nServicing\n\n' +
        'A free first service is included six weeks after purchase.\nBook it from your account page or by phone.',
    );
  });

  it('fails with unsupported_document on a broken PDF, broken JSON or a document without words', async () => {
    expect(await failure(extractText('pdf', bytes('%PDF-1.4\nnot really a pdf')))).toBe('unsupported_document');
    expect(await failure(extractText('json', bytes('{"a":')))).toBe('unsupported_document');
    expect(await failure(extractText('html', bytes('<html><body><script>only()</script></body></html>')))).toBe('unsupported_document');
    expect(await failure(extractText('markdown', bytes('--- *** ---')))).toBe('unsupported_document');
  });
});

describe('upload formats', () => {
  const pdf = readFileSync(join(FIXTURES, 'warranty.pdf'));
  it('fails with unsupported_document on a PDF whose page tree loops: the file is at fault (D-1086)', async () => {
    const objects = [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 5 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
      '<< /Length 42 >>\nstream\nBT /F1 12 Tf 72 720 Td (hello world) Tj ET\nendstream',
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ];
    let file = '%PDF-1.7\n';
    const offsets = objects.map((body, i) => {
      const at = file.length;
      file += `${i + 1} 0 obj\n${body}\nendobj\n`;
      return at;
    });
    const xref = file.length;
    file += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
    file += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
    expect(await failure(extractText('pdf', bytes(file)))).toBe('unsupported_document');
  });

  it('judges by the bytes first, then the extension, then the declared type', () => {
    expect(detectUploadFormat('notes.md', 'text/plain', bytes('# x'))).toBe('markdown');
    expect(detectUploadFormat('notes', 'text/markdown', bytes('# x'))).toBe('markdown');
    expect(detectUploadFormat('page.HTM', '', bytes('<p>x</p>'))).toBe('html');
    expect(detectUploadFormat('data.csv', 'application/octet-stream', bytes('a,b'))).toBe('csv');
    expect(detectUploadFormat('data', 'application/ld+json', bytes('{}'))).toBe('json');
    expect(detectUploadFormat('scan.bin', 'application/octet-stream', pdf)).toBe('pdf');
    expect(detectUploadFormat('readme.txt', 'text/plain', bytes('hello'))).toBe('text');
  });

  it('refuses what the pipeline cannot read', () => {
    expect(detectUploadFormat('photo.png', 'image/png', Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 0]))).toBeUndefined();
    expect(detectUploadFormat('report.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', bytes('PK...'))).toBeUndefined();
    expect(detectUploadFormat('fake.pdf', 'application/pdf', bytes('hello'))).toBeUndefined();
    expect(detectUploadFormat('notes.txt', 'text/plain', Uint8Array.from([104, 0, 105]))).toBeUndefined();
    expect(detectUploadFormat('broken.json', 'application/json', bytes('{"a": '))).toBeUndefined();
  });

  it('decodes UTF-8, a declared charset, or Windows-1252 for old files', () => {
    expect(decodeText(bytes('Año café'))).toBe('Año café');
    expect(decodeText(Uint8Array.from([0x41, 0xf1, 0x6f]))).toBe('Año');
    expect(decodeText(Uint8Array.from([0x41, 0xf1, 0x6f]), 'iso-8859-1')).toBe('Año');
  });

  it('reads UTF-16 text a byte-order mark announces, little- or big-endian, as text (D-1086)', () => {
    const le = Uint8Array.from([0xff, 0xfe, ...Buffer.from('Año café', 'utf16le')]);
    const be = Uint8Array.from([0xfe, 0xff, ...Buffer.from('Año café', 'utf16le').swap16()]);
    for (const text of [le, be]) {
      expect(decodeText(text, 'windows-1252')).toBe('Año café');
      expect(detectUploadFormat('notes.txt', 'text/plain', text)).toBe('text');
    }
    // Without the mark, NUL bytes still say binary.
    expect(detectUploadFormat('notes.txt', 'text/plain', le.subarray(2))).toBeUndefined();
  });
});

describe('the charset of a web page (D-1189)', () => {
  // "Привет мир" in Windows-1251.
  const cp1251 = Uint8Array.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2, 0x20, 0xec, 0xe8, 0xf0]);
  const page = (head: string, tail: Uint8Array = cp1251) => Uint8Array.from([...bytes(`${head}<title>T</title><p>`), ...tail]);

  it('reads a <meta charset> or a <meta http-equiv> in the first 1024 bytes when no charset is declared', async () => {
    expect(await extractText('html', page('<meta charset="windows-1251">'))).toEqual({ text: 'Привет мир', title: 'T' });
    expect((await extractText('html', page('<meta http-equiv="Content-Type" content="text/html; charset=cp1251">'))).text).toBe('Привет мир');
    // Past the first 1024 bytes, the prescan does not look.
    expect((await extractText('html', page(`<!--${'x'.repeat(1100)}--><meta charset="windows-1251">`))).text).not.toBe('Привет мир');
  });

  it('lets a declared charset outrank the <meta>, and a byte order mark outrank both', async () => {
    expect((await extractText('html', page('<meta charset="utf-8">'), 'windows-1251')).text).toBe('Привет мир');
    const utf8 = page('<meta charset="windows-1251">', bytes('Привет мир'));
    expect((await extractText('html', Uint8Array.from([0xef, 0xbb, 0xbf, ...utf8]), 'windows-1251')).text).toBe('Привет мир');
  });

  it('reads pages without any charset as before: UTF-8, else Windows-1252', async () => {
    expect(await extractText('html', page('<meta charset="utf-8">', bytes('Año café')))).toEqual({ text: 'Año café', title: 'T' });
    expect(await extractText('html', page('', bytes('Año café')))).toEqual({ text: 'Año café', title: 'T' });
    expect(await extractText('html', page('', Uint8Array.from([0x41, 0xf1, 0x6f])))).toEqual({ text: 'Año', title: 'T' });
    // Another format's <meta> is only text.
    expect((await extractText('text', page('<meta charset="windows-1251">'))).text).not.toContain('Привет');
  });
});

describe('a fetched response whose type lies about its bytes (D-1191)', () => {
  const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
  const pdf = readFileSync(join(FIXTURES, 'warranty.pdf'));

  it('is unsupported_document when a text type holds binary data or a PDF', () => {
    for (const [type, body] of [
      ['text/plain', png],
      ['text/html; charset=utf-8', pdf],
      ['application/json', png],
      [undefined, png],
    ] as const) {
      expect(() => formatOfResponse(type, body), String(type)).toThrow(expect.objectContaining({ code: 'unsupported_document' }));
    }
  });

  it('keeps the declared type otherwise (D-077)', () => {
    expect(formatOfResponse('application/pdf', pdf)).toEqual({ format: 'pdf', charset: undefined });
    expect(formatOfResponse(undefined, pdf).format).toBe('pdf');
    expect(formatOfResponse('text/plain; charset=utf-16le', Uint8Array.from([0xff, 0xfe, 0x41, 0]))).toEqual({ format: 'text', charset: 'utf-16le' });
    expect(formatOfResponse('text/html', bytes('# not html'))).toEqual({ format: 'html', charset: undefined });
  });
});

describe("an upload part's charset (D-1190)", () => {
  it('is kept by its encoding name when the platform can decode it', () => {
    expect(declaredCharset('text/plain; charset=windows-1251')).toBe('windows-1251');
    expect(declaredCharset('text/plain; charset="CP1251"')).toBe('windows-1251');
    expect(declaredCharset('text/plain; charset=latin1')).toBe('windows-1252');
    expect(declaredCharset('text/plain; charset=utf8')).toBe('utf-8');
    expect(declaredCharset('text/plain; charset=klingon')).toBeUndefined();
    expect(declaredCharset('text/plain')).toBeUndefined();
    expect(declaredCharset('')).toBeUndefined();
  });
});

describe('HTML without a body', () => {
  it('reads fragments and pages that leave out the optional <body> tag', async () => {
    expect(await extractText('html', bytes('<main><h1>Hours</h1><p>Open from nine to six.</p></main>'))).toEqual({
      text: '# Hours\n\nOpen from nine to six.',
      title: 'Hours',
    });
    expect(await extractText('html', bytes('<html><head><title>X</title></head><p>No body tag here.</p></html>'))).toEqual({
      text: 'No body tag here.',
      title: 'X',
    });
    expect((await extractText('html', bytes('plain words, no tags'))).text).toBe('plain words, no tags');
  });

  it('reads pages that leave out the optional <html> tag as the same page with it (D-1086)', async () => {
    const page = '<head><title>Rentals</title></head><body><p>Kayaks by the hour.</p></body>';
    const whole = await extractText('html', bytes(`<!doctype html><html>${page}</html>`));
    expect(whole).toEqual({ text: 'Kayaks by the hour.', title: 'Rentals' });
    for (const html of [`<!doctype html>${page}`, `<!DOCTYPE html>\n${page}`, page, '<title>Rentals</title><body><p>Kayaks by the hour.</p>']) {
      expect(await extractText('html', bytes(html)), html).toEqual(whole);
    }
  });
});

/** The code blocks of a Markdown text as marked reads them (what chunking sees). */
async function codeBlocks(markdown: string): Promise<{ lang: string; text: string }[]> {
  return (await markdownBlockTokens(markdown)).flatMap((t) => (t.type === 'code' ? [{ lang: t.lang ?? '', text: t.text }] : []));
}

describe('HTML code blocks (D-1010)', () => {
  const htmlText = async (body: string) => (await extractText('html', bytes(`<main><h1>Packages</h1><p>Before.</p>${body}<p>After.</p></main>`))).text;

  it('keep a DocBook screen whole: prompt, the command typed, its output', async () => {
    // The Debian Administrator's Handbook's markup: Turndown's own rule kept "$ " alone.
    const text = await htmlText(
      '<pre class="screen"><code class="computeroutput">$ </code><strong class="userinput"><code>apt install cowsay</code></strong>\n<code class="computeroutput">Reading package lists... Done\n# </code><strong class="userinput"><code>apt-mark hold cowsay</code></strong></pre>',
    );
    expect(text).toBe('# Packages\n\nBefore.\n\n```\n$ apt install cowsay\nReading package lists... Done\n# apt-mark hold cowsay\n```\n\nAfter.');
  });

  it('keep the text of a <pre> without <code> exactly: inline markup dropped, nothing escaped, spaces, tabs and blank lines as written', async () => {
    const code =
      'deb <a href="http://deb.debian.org/debian">http://deb.debian.org/debian</a> <em>bookworm</em> main\n  <span class="x">*.list</span> _x_ [1]\n\n\n\tindented <strong>with a tab</strong>';
    const text = await htmlText(`<pre class="programlisting">${code}</pre>`);
    expect(await codeBlocks(text)).toEqual([{ lang: '', text: 'deb http://deb.debian.org/debian bookworm main\n  *.list _x_ [1]\n\n\n\tindented with a tab' }]);
  });

  it('keep every <code> of a <pre> and read <br> as a line break', async () => {
    const text = await htmlText('<pre><code>first</code>\n<code>second</code></pre><pre>one<br>two<br/><code>three</code></pre>');
    expect(await codeBlocks(text)).toEqual([
      { lang: '', text: 'first\nsecond' },
      { lang: '', text: 'one\ntwo\nthree' },
    ]);
  });

  it('keep a language class as the info string, on <code> or on <pre>', async () => {
    const text = await htmlText('<pre><code class="hl language-sh">echo hi</code></pre><pre class="language-python"><span>print(1)</span></pre>');
    expect(await codeBlocks(text)).toEqual([
      { lang: 'sh', text: 'echo hi' },
      { lang: 'python', text: 'print(1)' },
    ]);
  });

  it('fence code that holds backtick runs with a longer fence, so the block ends where the code does', async () => {
    const code = '```\nnot a fence\n   ````\ninline `x` and ``y``';
    const text = await htmlText(`<pre><code>${code}</code></pre>`);
    expect(text).toContain('`````\n```\nnot a fence');
    expect(await codeBlocks(text)).toEqual([{ lang: '', text: code }]);
    expect(text.endsWith('`````\n\nAfter.')).toBe(true);
  });

  it('drop an empty <pre>, and leave inline code inline', async () => {
    expect(await htmlText('<pre> \n </pre><p>Run <code>ls -l</code> now.</p>')).toBe('# Packages\n\nBefore.\n\nRun `ls -l` now.\n\nAfter.');
  });
});
