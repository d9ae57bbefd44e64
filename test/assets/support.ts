import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Emulator } from '../../emulator/emulator.js';
import type { Client } from '../support/client.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'assets');

/** The bytes of a file in `test/fixtures/assets/`. */
export function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(join(FIXTURES, name)));
}

/** A multipart body with `file` (bytes under a file name) and any text fields. */
export function form(bytes: Uint8Array, fileName: string, fields: Record<string, string> = {}, type = 'application/octet-stream'): FormData {
  const body = new FormData();
  body.set('file', new File([bytes], fileName, { type }));
  for (const [name, value] of Object.entries(fields)) body.set(name, value);
  return body;
}

/** Uploads a fixture file (or bytes) as an asset. */
export function upload(api: Client, file: string | Uint8Array, fields: Record<string, string> = {}, headers?: Record<string, string>) {
  const bytes = typeof file === 'string' ? fixture(file) : file;
  return api.post('/v1/assets', form(bytes, typeof file === 'string' ? file : 'upload.bin', fields), headers);
}

/** Fetches a signed file URL with no API key, reading the raw bytes. */
export async function fetchFile(emulator: Emulator, url: string, init: RequestInit = {}) {
  const res = await emulator.fetch(new Request(url, init));
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, bytes, body };
}

/** A site with one document page, for assets and brand that hang on them. */
export async function siteWithPage(api: Client, label: string) {
  const project = await api.post('/v1/projects', { name: `Site ${label}`, slug: `site-${label}` });
  if (project.status !== 201) throw new Error(`project: ${project.status} ${project.text}`);
  const page = await api.post(`/v1/projects/${project.body.id}/pages`, { name: 'Gallery', kind: 'document', path: `/gallery-${label}` });
  if (page.status !== 201) throw new Error(`page: ${page.status} ${page.text}`);
  return { projectId: project.body.id as string, pageId: page.body.id as string };
}
