import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import { client } from '../support/client.js';
import { quiet } from '../support/emulator.js';
import { freshDatabase } from '../support/postgres.js';

// Two emulators on one PostgreSQL database; one imports a state (as `reset` does) while
// the other has read the knowledge. A state carries no term ids (they are derived), so
// the import gives them again from the start; the other process must drop what it
// derived from the old ones, or it stores new chunks under ids that now name other
// terms, or none, and no process finds them (D-1133).
describe('PostgreSQL shared by processes: a state imported by one of them', () => {
  const emulators: Emulator[] = [];
  let url: string;

  beforeAll(async () => {
    url = freshDatabase(inject('postgres'), 'import');
    emulators.push(await createEmulator({ db: url, fixtures: 'none', log: quiet }), await createEmulator({ db: url, fixtures: 'none', log: quiet }));
  }, 60_000);

  afterAll(async () => {
    for (const emulator of emulators) await emulator.close();
  });

  it('the other process drops the knowledge it derived: what it ingests next is found by every process', async () => {
    const [importer, other] = emulators as [Emulator, Emulator];
    const ws = await importer.createWorkspace();
    const via = (emulator: Emulator) => client(emulator, ws.apiKey.secret);
    const agentId = (await via(importer).post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id;
    const titles = async (emulator: Emulator, query: string) =>
      ((await via(emulator).post(`/v1/agents/${agentId}/query`, { query, topics: [] })).body.passages as { title: string }[]).map((p) => p.title);

    await via(importer).post('/v1/knowledge/text', { title: 'Hours', text: 'The shop opens at nine in the morning.' });
    await importer.drain();
    const state = await importer.exportState();
    // The other process learns terms the state does not hold.
    await via(other).post('/v1/knowledge/text', { title: 'Parking', text: 'Parking is behind the bakery, free for customers.' });
    await other.drain();
    expect(await titles(other, 'where is parking')).toEqual(['Parking']);

    await importer.importState(state);
    expect(await titles(importer, 'when does the shop open')).toEqual(['Hours']);
    expect((await via(other).post('/v1/knowledge/text', { title: 'Bakery', text: 'The bakery sells bread and cakes.' })).status).toBe(202);
    await other.drain();
    const late = await createEmulator({ db: url, fixtures: 'none', log: quiet });
    emulators.push(late);
    for (const emulator of [importer, other, late]) expect(await titles(emulator, 'does the bakery sell bread')).toEqual(['Bakery']);
  }, 60_000);
});
