import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { packageRoot } from '../../emulator/package-info.js';
import { kernedContent, PdfWriter } from '../../test/support/pdf.js';
import { fmt, startServer, stop } from '../support.js';
import { LOAD, meLatency } from './latency.js';
import { vocabulary } from './vocabulary.js';

const CLI = join(packageRoot(), 'dist', 'cli.js');
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const MiB = 1024 * 1024;
// Just under the 20 MiB upload limit once the multipart envelope is added.
const TARGET = 20 * MiB - 64 * 1024;

const WORDS = 'the shop opens at nine and closes at six every day except sunday when repairs wait for monday'.split(' ');

const PAGES = 1_900;

/**
 * A PDF of about 20 MiB: 1,900 pages of kerned text, as typesetters write it (about
 * 1.9 million characters, under the caps), each content stream padded with a comment
 * line up to its share of the size.
 */
function bigPdf(): Buffer {
  const pdf = new PdfWriter();
  const perPage = Math.floor(TARGET / PAGES) - 300;
  let n = 0;
  for (let p = 0; p < PAGES; p++) {
    const lines: string[] = [];
    for (let l = 0; l < 14; l++) {
      let line = '';
      while (line.length < 70) line += `${WORDS[(n++ * 7) % WORDS.length]} `;
      lines.push(line.trim());
    }
    const content = kernedContent(lines);
    const pad = Math.max(0, perPage - content.length - 2);
    pdf.page({ contents: [pdf.stream({ data: Buffer.concat([content, Buffer.from(`\n%${'x'.repeat(pad)}`, 'latin1')]) })] });
  }
  return pdf.toBuffer();
}

/** A clean SVG logo of about 20 MiB: a style sheet, gradients and many painted paths. */
function bigSvg(): Buffer {
  const parts = [
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1000 1000"><defs><linearGradient id="g"><stop offset="0" stop-color="#4f46e5"/><stop offset="1" stop-color="#f59e0b"/></linearGradient></defs>',
    '<style>/* brand */ .a { fill: url(#g); stroke: #111827 } @media (prefers-color-scheme: dark) { .a { stroke: #fff } }</style>',
  ];
  let size = parts.join('').length;
  for (let i = 0; size < TARGET; i++) {
    const path = `<path class="a" d="M${i % 1000} ${(i * 7) % 1000}l10 10h-5z" fill="url(#g)" style="stroke-width:${i % 3}"/>`;
    parts.push(path);
    size += path.length;
  }
  parts.push('</svg>');
  return Buffer.from(parts.join(''));
}

async function json<T>(res: Response): Promise<T> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/**
 * p99 latency of `GET /v1/me` from one workspace while another uploads a 20 MiB PDF
 * (ingested in the background) and a 20 MiB SVG logo (checked before the answer),
 * against the same p99 with the server idle, measured in the same run (goal: under 2x).
 */
export async function run(): Promise<void> {
  const pdf = bigPdf();
  const svg = bigSvg();
  const emu = await startServer([CLI, '--port', '0', '--fixtures', 'none']);
  try {
    const control = <T>(path: string, method: string, body?: unknown) =>
      fetch(`${emu.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }).then(
        (res) => json<T>(res),
      );
    type Created = { workspaceId: string; apiKey: { secret: string } };
    const busy = await control<Created>('/_emulator/workspaces', 'POST', { name: 'Uploader' });
    const quiet = await control<Created>('/_emulator/workspaces', 'POST', { name: 'Reader' });
    for (const ws of [busy, quiet]) await control(`/_emulator/workspaces/${ws.workspaceId}`, 'PATCH', { rateLimit: { limit: 1e9 } });
    const auth = { authorization: `Bearer ${busy.apiKey.secret}` };
    const project = await json<{ id: string }>(
      await fetch(`${emu.url}/v1/projects`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Logo site' }),
      }),
    );

    // Warm up the stack, then the idle baseline.
    for (let i = 0; i < 500; i++) await (await fetch(`${emu.url}/v1/me`, { headers: { authorization: `Bearer ${quiet.apiKey.secret}` } })).arrayBuffer();
    const idle = await meLatency(emu.url, quiet.apiKey.secret, DURATION * 1000);

    // Multipart bodies encoded before the clock runs: the client's own encoding would
    // block the same event loop that times the other workspace's requests.
    const encoded = async (bytes: Buffer, name: string, type: string) => {
      const form = new FormData();
      form.set('file', new File([bytes], name, { type }));
      const request = new Request('http://encode/', { method: 'POST', body: form });
      return { body: new Uint8Array(await request.arrayBuffer()), type: request.headers.get('content-type')! };
    };
    const pdfBody = await encoded(pdf, 'handbook.pdf', 'application/pdf');
    const svgBody = await encoded(svg, 'logo.svg', 'image/svg+xml');
    const t0 = performance.now();
    const pdfDone = fetch(`${emu.url}/v1/knowledge/uploads`, { method: 'POST', headers: { ...auth, 'content-type': pdfBody.type }, body: pdfBody.body })
      .then((res) => json<{ id: string }>(res))
      .then(async (source) => {
        for (;;) {
          const s = await json<{ status: string; error?: string }>(await fetch(`${emu.url}/v1/knowledge/sources/${source.id}`, { headers: auth }));
          if (s.status !== 'pending') return { status: s.status as string, error: s.error as string | undefined, ms: performance.now() - t0 };
          await new Promise((r) => setTimeout(r, 200));
        }
      });
    const svgDone = fetch(`${emu.url}/v1/projects/${project.id}/brand/logo`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': svgBody.type },
      body: svgBody.body,
    }).then(async (res) => ({
      status: res.status,
      ms: performance.now() - t0,
      body: await res.text(),
    }));
    const loaded = await meLatency(emu.url, quiet.apiKey.secret, DURATION * 1000);
    const [pdfResult, svgResult] = await Promise.all([pdfDone, svgDone]);

    console.log(`GET /v1/me from another workspace, ${LOAD.connections} clients pausing ${LOAD.pauseMs} ms between requests, ${DURATION}s each`);
    console.log(`  idle                                  p99 ${fmt(idle.p99, 2)} ms  ${fmt(idle.rps, 0)} req/s`);
    console.log(`  with a 20 MiB PDF and a 20 MiB SVG    p99 ${fmt(loaded.p99, 2)} ms  ${fmt(loaded.rps, 0)} req/s  non-2xx ${loaded.non2xx}`);
    console.log(
      `  PDF (${fmt(pdf.length / MiB)} MiB) ${pdfResult.status}${pdfResult.error ? ` ${pdfResult.error}` : ''} after ${fmt(pdfResult.ms / 1000)} s; SVG (${fmt(svg.length / MiB)} MiB) answered ${svgResult.status} after ${fmt(svgResult.ms / 1000)} s`,
    );
    if (svgResult.status !== 200) console.log(`  SVG answer: ${svgResult.body.slice(0, 300)}`);
    console.log(`  ratio       ${fmt(loaded.p99 / idle.p99, 2)}x the idle p99 (target < 2.00)`);
    await vocabulary(emu.url, control, quiet.apiKey.secret, idle);
  } finally {
    await stop(emu.child);
  }
}
