import { describe, it } from 'vitest';
import { setupEmulator } from 'svc-emulator/vitest';

const ctx = setupEmulator({ seed: 1 });

// Tests that run at once share the file's emulator; each takes its own workspace and
// client from its test context: ctx.of(test).
describe.concurrent('three tests at once', () => {
  for (const name of ['Ada', 'Grace', 'Edsger']) {
    it(`${name} sees only her own agent`, async (test) => {
      const { api } = ctx.of(test);
      await api.POST('/v1/agents', { body: { name, identity: { businessName: 'Acme' } } });
      const agents = await api.GET('/v1/agents');
      test.expect(agents.ok && agents.data.data.map((agent) => agent.name)).toEqual([name]);
    });
  }
});
