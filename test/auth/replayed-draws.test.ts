import { afterAll, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { send } from '../support/client.js';
import { quiet } from '../support/emulator.js';
import { populateEveryTable, type Doc } from '../support/state-fuzz.js';

const emulator = await createEmulator({ seed: 24, fixtures: 'none', log: quiet });
afterAll(() => emulator.close());

// Found by the state property test: a state whose id generator was set back replays its
// draws, and a key minted next drew a secret an existing key already had (a 500 on the
// unique hash). The gate takes any draw count (it cannot know which were used); the key
// is drawn again instead.
it('a state whose id generator replays its draws still mints keys with secrets of their own', async () => {
  const { key } = await populateEveryTable(emulator);
  const state = (await send(emulator, 'GET', '/_emulator/state')).body as Doc;
  state.ids.draws = 1;
  expect((await send(emulator, 'PUT', '/_emulator/state', { body: state })).status).toBe(200);
  const created = await send(emulator, 'POST', '/_emulator/workspaces', { body: {} });
  expect(created.status).toBe(201);
  const secret = created.body.apiKey.secret as string;
  expect(secret).not.toBe(key);
  expect((await send(emulator, 'GET', '/v1/me', { key: secret })).body.workspaceId).toBe(created.body.workspaceId);
  expect((await send(emulator, 'GET', '/v1/me', { key })).status).toBe(200);
});
