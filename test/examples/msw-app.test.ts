import { readFileSync } from 'node:fs';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient, createEmulator } from 'svc-emulator';
import { emulatorHandlers } from 'svc-emulator/msw';
import { HelpDesk, PRODUCTION_API } from './app/help-desk.js';

// The app calls https://api.example.com; MSW hands those calls to the emulator in process.
const emulator = await createEmulator({ seed: 1 });
const server = setupServer(...emulatorHandlers(emulator, { baseUrl: PRODUCTION_API }));
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(async () => {
  server.close();
  await emulator.close();
});

const { apiKey } = await emulator.createWorkspace();
const desk = new HelpDesk(apiKey.secret);

it('JSON calls and node:https reach the emulator', async () => {
  const assistant = await desk.createAssistant('Ada', 'Acme Bakery');
  expect(assistant).toMatchObject({ id: expect.stringMatching(/^agt_/), name: 'Ada' });
  const me = await desk.whoAmI();
  expect(me.status).toBe(200);
  expect(me.body.scopes).toContain('landings:write');
});

it('uploads an image (multipart) and downloads it again (binary) from its signed URL', async () => {
  const png = new Uint8Array(readFileSync(new URL('../fixtures/assets/image.png', import.meta.url)));
  const asset = await desk.uploadImage(png, 'logo.png');
  expect(asset.contentType).toBe('image/png');
  expect(asset.url.startsWith(`${PRODUCTION_API}/files/${asset.id}?`)).toBe(true);
  const file = await desk.download(asset.url);
  expect(file.contentType).toBe('image/png');
  expect(Buffer.from(file.bytes).equals(Buffer.from(png))).toBe(true);
});

it('streams a chat answer (SSE) token by token', async () => {
  const assistant = await desk.createAssistant('Bo', 'Acme Bakery');
  await desk.teach('Opening hours', 'The bakery opens at 7 am every day, Sundays included.');
  await emulator.drain();
  const tokens: string[] = [];
  const reply = await desk.ask(assistant.id, 'When does the bakery open on Sundays?', (t) => tokens.push(t));
  expect(tokens.length).toBeGreaterThan(3);
  expect(tokens.join('')).toBe(reply);
  expect(reply).toMatch(/7 am/);
});

it('the package\'s typed client goes through the same handlers, with the same types', async () => {
  // A base URL instead of the emulator: the client calls global fetch, which MSW answers.
  const api = createClient(PRODUCTION_API, apiKey.secret);
  const me = await api.GET('/v1/me');
  if (!me.ok) throw new Error(me.error.detail);
  expect(me.data.scopes).toContain('landings:write');
});
