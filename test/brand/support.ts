import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '../support/client.js';

const SVG = join(import.meta.dirname, '..', 'fixtures', 'svg');

export interface HostileSvg {
  file: string;
  reasons: string[];
  source: string;
  bytes: Uint8Array;
}

/** The hostile SVGs of `test/fixtures/svg/hostile/` with the reasons each must be refused for. */
export function hostileSvgs(): HostileSvg[] {
  const manifest = JSON.parse(readFileSync(join(SVG, 'hostile.json'), 'utf8')) as Omit<HostileSvg, 'bytes'>[];
  return manifest.map((row) => ({ ...row, bytes: new Uint8Array(readFileSync(join(SVG, 'hostile', row.file))) }));
}

/** The clean SVGs of `test/fixtures/svg/clean/`: real icons and logos that must pass. */
export function cleanSvgs(): { file: string; bytes: Uint8Array }[] {
  return readdirSync(join(SVG, 'clean'))
    .filter((f) => f.endsWith('.svg'))
    .sort()
    .map((file) => ({ file, bytes: new Uint8Array(readFileSync(join(SVG, 'clean', file))) }));
}

export function fileForm(bytes: Uint8Array, name = 'logo.bin'): FormData {
  const body = new FormData();
  body.set('file', new File([bytes], name));
  return body;
}

let sites = 0;

/** A new site of the workspace; its id. */
export async function newSite(api: Client): Promise<string> {
  const res = await api.post('/v1/projects', { name: `Brand site ${++sites}` });
  if (res.status !== 201) throw new Error(`project: ${res.status} ${res.text}`);
  return res.body.id as string;
}
