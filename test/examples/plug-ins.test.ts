import { afterAll, expect, it } from 'vitest';
import { createClient, createEmulator } from 'svc-emulator';

// A chat model and a translator of your own replace the deterministic defaults.
const emulator = await createEmulator({
  seed: 1,
  chatModel: {
    id: 'shouting-model',
    reply: (input) => ({
      tokens: (async function* () {
        yield `${input.passages.length} passages for `;
        yield input.message.toUpperCase();
      })(),
    }),
  },
  translator: { translate: async (texts, from, to) => texts.map((t) => `${t} (${from}→${to})`) },
});
afterAll(() => emulator.close());
const { apiKey } = await emulator.createWorkspace();
const api = createClient(emulator, apiKey.secret);

it('answers chat turns with the model given', async () => {
  const agent = await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } });
  await api.post('/v1/knowledge/text', { title: 'Hours', text: 'We open every day at nine.', agentId: agent.body.id });
  await emulator.drain(); // ingest what is queued
  const turn = await api.post(`/v1/agents/${agent.body.id}/chat`, { message: 'When do you open?' });
  expect(turn.body.reply).toBe('1 passages for WHEN DO YOU OPEN?');
  // With nothing relevant known the model is not asked: the agent says it cannot answer yet.
  const unknown = await api.post(`/v1/agents/${agent.body.id}/chat`, { message: 'Do you sell kayaks?' });
  expect(unknown.body.components).toEqual([]);
});

it('fills a new language of a site with the translator given', async () => {
  const project = await api.post('/v1/projects', { name: 'Acme Coffee' });
  const page = await api.post(`/v1/projects/${project.body.id}/pages`, { name: 'About', kind: 'document', path: '/about', body: { en: 'We roast.' } });
  await api.patch(`/v1/projects/${project.body.id}`, { locales: ['en', 'es'] });
  await emulator.drain();
  expect((await api.get(`/v1/pages/${page.body.id}`)).body.body).toEqual({ en: 'We roast.', es: 'We roast. (en→es)' });
});
