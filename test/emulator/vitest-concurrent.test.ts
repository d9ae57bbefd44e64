import { describe, expect, it } from 'vitest';
import { setupEmulator } from '../../emulator/vitest.js';

const ctx = setupEmulator({ seed: 2 });

// Three tests that start together and wait for one another, so that they surely overlap.
let started = 0;
let allStarted: () => void;
const together = new Promise<void>((resolve) => (allStarted = resolve));

describe.concurrent('setupEmulator under concurrent tests', () => {
  for (const name of ['A', 'B', 'C']) {
    it(`test ${name}: ctx.of(test) is its own workspace; ctx.api names no test and throws`, async (test) => {
      const mine = ctx.of(test);
      if (++started === 3) allStarted();
      await together;
      await mine.api.POST('/v1/agents', { body: { name, identity: { businessName: 'Acme' } } });
      const agents = await mine.api.GET('/v1/agents');
      test.expect(agents.ok && agents.data.data.map((a) => a.name)).toEqual([name]);
      test.expect(() => ctx.api).toThrow(/ctx\.of\(test\)/);
      test.expect(() => ctx.workspace).toThrow(/run at once/);
    });
  }
});

describe('setupEmulator after the concurrent tests', () => {
  it("one test at a time again: ctx.api and ctx.workspace are this test's, as ctx.of(test)", async (test) => {
    expect(ctx.workspace).toBe(ctx.of(test).workspace);
    const me = await ctx.api.GET('/v1/me');
    expect(me.ok && me.data.workspaceId).toBe(ctx.of(test).workspace.workspaceId);
  });
});
