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
  const agent = await api.POST('/v1/agents', { body: { name: 'Ada', identity: { businessName: 'Acme' } } });
  if (!agent.ok) throw new Error(agent.error.detail);
  const agentId = agent.data.id;
  await api.POST('/v1/knowledge/text', { body: { title: 'Hours', text: 'We open every day at nine.', agentId } });
  await emulator.drain(); // ingest what is queued
  const turn = await api.POST('/v1/agents/{agentId}/chat', { params: { path: { agentId } }, body: { message: 'When do you open?' } });
  expect(turn.ok && turn.data.reply).toBe('1 passages for WHEN DO YOU OPEN?');
  // With nothing relevant known the model is not asked: the agent says it cannot answer yet.
  const unknown = await api.POST('/v1/agents/{agentId}/chat', { params: { path: { agentId } }, body: { message: 'Do you sell kayaks?' } });
  expect(unknown.ok && unknown.data.components).toEqual([]);
});

it('fills a new language of a site with the translator given', async () => {
  const project = await api.POST('/v1/projects', { body: { name: 'Acme Coffee' } });
  if (!project.ok) throw new Error(project.error.detail);
  const projectId = project.data.id;
  const page = await api.POST('/v1/projects/{projectId}/pages', { params: { path: { projectId } }, body: { name: 'About', kind: 'document', path: '/about', body: { en: 'We roast.' } } });
  if (!page.ok) throw new Error(page.error.detail);
  await api.PATCH('/v1/projects/{projectId}', { params: { path: { projectId } }, body: { locales: ['en', 'es'] } });
  await emulator.drain();
  const translated = await api.GET('/v1/pages/{pageId}', { params: { path: { pageId: page.data.id } } });
  expect(translated.ok && translated.data.body).toEqual({ en: 'We roast.', es: 'We roast. (en→es)' });
});
