import { describe, expect, it } from 'vitest';
import { fileEmulator, workspace } from '../support/emulator.js';
import { createAgent, ingest, readEvents, streamRequest } from './support.js';

const emulator = await fileEmulator({ seed: 9 });

const STORES = [
  {
    title: 'Madrid store',
    text: 'The Madrid store is at Calle Mayor 10. The Madrid store opens from 10:00 to 20:00, Monday to Saturday. The phone number of the Madrid store is 910 000 111.',
    topics: ['stores'],
  },
  {
    title: 'Barcelona store',
    text: 'The Barcelona store is at Passeig de Gràcia 5. The Barcelona store opens from 9:00 to 21:00 every day. The phone number of the Barcelona store is 930 000 222.',
    topics: ['stores'],
  },
  {
    title: 'Devoluciones',
    text: 'Puedes devolver cualquier producto en un plazo de 30 días con el ticket de compra. El reembolso llega a tu tarjeta en cinco días laborables.',
    topics: ['returns'],
  },
];

async function shop() {
  const ws = await workspace(emulator);
  const agentId = await createAgent(ws.api, 'Lola', 'Tiendas Lola');
  const sourceIds = await ingest(
    ws.api,
    ws.control,
    STORES.map((s) => ({ ...s, agentId })),
  );
  const chat = (body: unknown) => ws.api.post(`/v1/agents/${agentId}/chat`, body);
  return { ...ws, agentId, sourceIds, chat };
}

describe('answers from knowledge', () => {
  it('answers with the sentences that answer the question, and names the sources used', async () => {
    const { chat, sourceIds } = await shop();
    const res = await chat({ message: 'What is the phone number of the Barcelona store?' });
    expect(res.status).toBe(200);
    expect(res.body.reply).toBe('The phone number of the Barcelona store is 930 000 222.');
    expect(res.body.components).toEqual([{ type: 'sources', items: [{ sourceId: sourceIds[1], title: 'Barcelona store' }] }]);
    expect(res.body.cached).toBe(false);
  });

  it('answers in the language of the message when the knowledge speaks it', async () => {
    const { chat, sourceIds } = await shop();
    const res = await chat({ message: '¿Cuántos días tengo para devolver un producto?' });
    expect(res.body.reply).toBe('Puedes devolver cualquier producto en un plazo de 30 días con el ticket de compra.');
    expect(res.body.components[0].items[0].sourceId).toBe(sourceIds[2]);
  });

  it('says so, in the language of the message, when the knowledge is only in the other language', async () => {
    const { chat } = await shop();
    const res = await chat({ message: '¿Cuál es el teléfono de la tienda de Madrid, el número de Madrid store?' });
    expect(res.body.reply).toMatch(/^Solo tengo esta información en inglés: .*910 000 111/);
  });

  it('is polite and cites nothing when nothing relevant is known', async () => {
    const { chat } = await shop();
    const res = await chat({ message: 'Do you repair bicycles?' });
    expect(res.body.reply).toBe("I'm sorry, I don't have information about that yet. You can ask me something else or contact Tiendas Lola directly.");
    expect(res.body.components).toEqual([]);
  });

  it('a follow-up question in a conversation uses the earlier turns', async () => {
    const { chat } = await shop();
    const first = await chat({ message: 'When does the Madrid store open?' });
    expect(first.body.reply).toContain('10:00 to 20:00');
    const followUp = await chat({ message: 'And what is its phone number?', conversationId: first.body.conversationId });
    expect(followUp.body.reply).toBe('The phone number of the Madrid store is 910 000 111.');
    // The same question alone has no store to go by.
    const alone = await chat({ message: 'And what is its phone number?' });
    expect(alone.body.reply).not.toBe(followUp.body.reply);
  });

  it('reads Markdown sections, and answers "where" with an address', async () => {
    const { api, control, agentId, chat } = await shop();
    await ingest(api, control, [
      {
        title: 'Our bars',
        text: '# Our bars\n\n## Ruzafa bar\n\nCalle de Sueca 21. Open Monday to Friday from 8:00 to 19:00.\n\n## El Carmen bar\n\nPlaza del Tossal 4. Open every day from 9:00 to 20:00.',
        agentId,
      },
    ]);
    const when = await chat({ message: 'When does the El Carmen bar open?' });
    expect(when.body.reply).toBe('Open every day from 9:00 to 20:00.');
    const where = await chat({ message: 'And where is it?', conversationId: when.body.conversationId });
    expect(where.body.reply).toMatch(/^Plaza del Tossal 4\./);
    expect(where.body.reply).not.toContain('Sueca');
  });

  it('a follow-up about what the knowledge leaves out is answered with what it says', async () => {
    const { chat } = await shop();
    const first = await chat({ message: 'When does the Barcelona store open?' });
    const sunday = await chat({ message: 'And on Sundays?', conversationId: first.body.conversationId });
    expect(sunday.body.reply).toBe('The Barcelona store opens from 9:00 to 21:00 every day.');
    const unrelated = await chat({ message: 'And do you sell helmets?', conversationId: first.body.conversationId });
    expect(unrelated.body.reply).toMatch(/^I'm sorry/);
  });

  it('a follow-up answered before in another context is not taken from the cache', async () => {
    const { chat } = await shop();
    const madrid = await chat({ message: 'When does the Madrid store open?' });
    const a = await chat({ message: 'And what is its phone number?', conversationId: madrid.body.conversationId });
    const barcelona = await chat({ message: 'When does the Barcelona store open?' });
    const b = await chat({ message: 'And what is its phone number?', conversationId: barcelona.body.conversationId });
    expect(a.body.reply).toContain('910 000 111');
    expect(b.body.reply).toContain('930 000 222');
    expect(b.body.cached).toBe(false);
  });
});

describe('URL sources', () => {
  it('a passage and a sources item of a crawled page carry its url', async () => {
    const { api, control, agentId, chat } = await shop();
    await control.put('/_emulator/web', {
      pages: [
        {
          url: 'https://lola.example/warranty',
          headers: { 'content-type': 'text/html' },
          body: '<title>Warranty</title><h1>Warranty</h1><p>Every bicycle has a two-year warranty.</p>',
        },
      ],
    });
    expect((await api.post('/v1/knowledge/urls', { url: 'https://lola.example/warranty', agentId })).status).toBe(202);
    await control.post('/_emulator/queue/drain');
    const passage = (await api.post(`/v1/agents/${agentId}/query`, { query: 'bicycle warranty', limit: 1 })).body.passages[0];
    expect(passage).toMatchObject({ title: 'Warranty', url: 'https://lola.example/warranty' });
    const answer = await chat({ message: 'How long is the warranty of a bicycle?' });
    expect(answer.body.reply).toBe('Every bicycle has a two-year warranty.');
    expect(answer.body.components).toEqual([
      { type: 'sources', items: [{ sourceId: passage.sourceId, title: 'Warranty', url: 'https://lola.example/warranty' }] },
    ]);
  });
});

describe('cached and knowledge changes', () => {
  it('a repeated question is cached until the knowledge of the agent changes', async () => {
    const { api, control, agentId, chat, sourceIds } = await shop();
    const question = { message: 'When does the Barcelona store open?' };
    expect((await chat(question)).body.cached).toBe(false);
    expect((await chat(question)).body.cached).toBe(true);
    await ingest(api, control, [{ title: 'Valencia store', text: 'The Valencia store opens from 11:00 to 19:00.', agentId }]);
    const afterAdd = await chat(question);
    expect(afterAdd.body.cached).toBe(false);
    expect((await chat(question)).body.cached).toBe(true);
    await api.delete(`/v1/knowledge/sources/${sourceIds[1]}`);
    const afterDelete = await chat(question);
    expect(afterDelete.body.cached).toBe(false);
    expect(afterDelete.body.reply).not.toContain('9:00 to 21:00');
  });

  it('knowledge added to another agent leaves the cache alone', async () => {
    const { api, control, chat } = await shop();
    const other = await createAgent(api, 'Other');
    await chat({ message: 'When does the Barcelona store open?' });
    await ingest(api, control, [{ title: 'Elsewhere', text: 'Something for the other agent.', agentId: other }]);
    expect((await chat({ message: 'When does the Barcelona store open?' })).body.cached).toBe(true);
  });
});

describe('streamed answers from knowledge', () => {
  it('streams the same answer, with its sources in done', async () => {
    const { key, agentId, chat } = await shop();
    const json = await chat({ message: 'Where is the Madrid store?' });
    const events = await readEvents(await streamRequest(emulator, key, agentId, { message: 'Where is the Madrid store, please?' }));
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data.reply).toBe(
      events
        .filter((e) => e.event === 'token')
        .map((e) => e.data.text)
        .join(''),
    );
    expect(done.data.reply).toBe(json.body.reply);
    expect(done.data.components).toEqual(json.body.components);
  });
});

describe('answers quote technical text as written (D-1076)', () => {
  it('underscores and stars inside names, paths and globs stay; emphasis marks go', async () => {
    const ws = await workspace(emulator);
    const agentId = await createAgent(ws.api, 'Ada', 'Ops');
    await ingest(ws.api, ws.control, [
      { title: 'Settings', text: 'Set the variable **my_var_name** in the file snake_case_name.txt before you start.', agentId },
      { title: 'Logs', text: 'Old logs are removed with rm /var/log/*.gz every week.', agentId },
    ]);
    const chat = async (message: string) => (await ws.api.post(`/v1/agents/${agentId}/chat`, { message })).body.reply as string;
    expect(await chat('Which variable do I set in the file?')).toBe('Set the variable my_var_name in the file snake_case_name.txt before you start.');
    expect(await chat('How are old logs removed?')).toBe('Old logs are removed with rm /var/log/*.gz every week.');
  });
});
