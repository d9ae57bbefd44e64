import type { Emulator } from '../../emulator/emulator.js';
import type { Client } from '../support/client.js';
import { send } from '../support/client.js';

/** The OpenAPI document the emulator serves, for `expectMatchesOpenApi`. */
export async function openapi(emulator: Emulator): Promise<any> {
  return (await send(emulator, 'GET', '/v1/openapi.json')).body;
}

/** Adds a text source and answers its id (throws unless 202). */
export async function addText(api: Client, body: Record<string, unknown>): Promise<string> {
  const res = await api.post('/v1/knowledge/text', body);
  if (res.status !== 202) throw new Error(`text add: ${res.status} ${res.text}`);
  return res.body.id;
}

/** Runs the queue to the end and reads a source back. */
export async function settled(emulator: Emulator, api: Client, sourceId: string): Promise<any> {
  await emulator.drain();
  const res = await api.get(`/v1/knowledge/sources/${sourceId}`);
  if (res.status !== 200) throw new Error(`get source: ${res.status} ${res.text}`);
  return res.body;
}

/** Replaces the offline web through the control plane. */
export async function putWeb(control: Client, web: unknown): Promise<void> {
  const res = await control.put('/_emulator/web', web);
  if (res.status !== 200) throw new Error(`web: ${res.status} ${res.text}`);
}

/** A multipart upload body. */
export function upload(file: { name: string; type?: string; content: string | Uint8Array }, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  form.append('file', new File([file.content], file.name, { type: file.type ?? '' }));
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}

export const html = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><nav><a href="/">Home</a></nav><main>${body}</main></body></html>`;
