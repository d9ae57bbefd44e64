import createClient from 'openapi-fetch';
import { expect, it } from 'vitest';
import { createEmulator, type paths } from 'svc-emulator/emulator';

// emulator.fetch has the signature of global fetch: hand it to any client that takes one.
const emulator = await createEmulator({ seed: 1 });
const { apiKey } = await emulator.createWorkspace();
const api = createClient<paths>({
  baseUrl: 'http://localhost',
  fetch: emulator.fetch,
  headers: { authorization: `Bearer ${apiKey.secret}` },
});

it('openapi-fetch, typed by the emulator\'s own OpenAPI description, no port', async () => {
  const { data: agent } = await api.POST('/v1/agents', { body: { name: 'Ada', identity: { businessName: 'Acme' } } });
  const { data } = await api.GET('/v1/agents/{agentId}', { params: { path: { agentId: agent!.id } } });
  expect(data?.name).toBe('Ada');
  const { error } = await api.GET('/v1/agents/{agentId}', { params: { path: { agentId: 'agt_missing' } } });
  expect(error?.code).toBe('svc.agent.not_found');
  // @ts-expect-error `nam` is not a field of a new agent: the types refuse it (and the server too)
  const wrong = await api.POST('/v1/agents', { body: { nam: 'Bo', identity: { businessName: 'Acme' } } });
  expect(wrong.response.status).toBe(400);
  await emulator.close();
});
