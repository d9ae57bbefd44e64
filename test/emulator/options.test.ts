import { describe, expect, it } from 'vitest';
import { createEmulator, EmulatorOptionsError, type EmulatorOptions } from '../../emulator/main.js';
import { parseCli } from '../../emulator/cli/options.js';
import { EMULATOR_OPTION_NAMES } from '../../emulator/options-schema.js';

const quiet = () => {};

/** What `createEmulator` refuses `options` with (it must refuse). */
async function refusal(options: unknown): Promise<EmulatorOptionsError> {
  const error = await createEmulator(options as EmulatorOptions).then(
    async (emulator) => {
      await emulator.close();
      throw new Error(`accepted ${JSON.stringify(options)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EmulatorOptionsError);
  expect(error).toBeInstanceOf(TypeError);
  return error as EmulatorOptionsError;
}

describe('createEmulator checks its options (one valibot schema) and names the one at fault', () => {
  it('a seed that is not a whole number', async () => {
    const error = await refusal({ seed: 'x' });
    expect(error.message).toBe('createEmulator: seed must be a whole number from 0, or a string of its digits; got "x"');
    expect(error.errors).toEqual([{ field: 'seed', reason: 'must be a whole number from 0, or a string of its digits; got "x"' }]);
    for (const seed of [-1, 1.5, Number.NaN, '', '1e3']) expect((await refusal({ seed })).errors[0]!.field).toBe('seed');
  });

  it('a seed is its number: leading zeros make no other seed, in createEmulator, --seed and SVC_EMULATOR_SEED (D-1096)', async () => {
    /** The first workspace id and key secret a seeded emulator hands out, and its signing secret at work in an export. */
    const firstDraws = async (seed: string | number) => {
      const emulator = await createEmulator({ seed, log: quiet });
      try {
        const { workspaceId, apiKey } = await emulator.createWorkspace();
        return { workspaceId, secret: apiKey.secret, hash: (await emulator.exportState()).tables.api_keys![0]!.hash };
      } finally {
        await emulator.close();
      }
    };
    const one = await firstDraws(1);
    for (const seed of ['1', '01', '001', '000000000000001']) expect(await firstDraws(seed), seed).toEqual(one);
    expect(await firstDraws('00')).toEqual(await firstDraws(0));
    expect(await firstDraws('10')).not.toEqual(one);
    // The CLI hands createEmulator (and the check of a sealed state file) the number's digits.
    const seedOf = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
      const cli = parseCli(argv, env);
      return cli.kind === 'start' || cli.kind === 'exec' ? cli.options.seed : undefined;
    };
    expect(seedOf(['--seed', '01'])).toBe('1');
    expect(seedOf(['--seed', '000'])).toBe('0');
    expect(seedOf(['--seed', '42'])).toBe('42');
    expect(seedOf([], { SVC_EMULATOR_SEED: '007' })).toBe('7');
    expect(seedOf(['exec', '--seed', '0012', '--', 'true'])).toBe('12');
    expect(seedOf([])).toBeUndefined();
    expect(() => seedOf(['--seed', '1e3'])).toThrow('--seed takes a whole number (up to 15 digits), got "1e3"');
  });

  it('an admin token a client could not send: white space around or inside it, or past printable ASCII (D-1173)', async () => {
    for (const adminToken of [' tok ', 'tok ', 'a b', 'tök', '', ' ']) expect((await refusal({ adminToken })).errors[0]!.field, adminToken).toBe('adminToken');
    const emulator = await createEmulator({ adminToken: 'Tok-3n.~+/=', log: quiet });
    await emulator.close();
    expect(() => parseCli(['--admin-token', ' tok '], {})).toThrow('--admin-token');
    expect(() => parseCli([], { SVC_EMULATOR_ADMIN_TOKEN: ' ' })).toThrow('SVC_EMULATOR_ADMIN_TOKEN');
    expect(() => parseCli([], { SVC_EMULATOR_ADMIN_TOKEN: 'a b' })).toThrow(
      'SVC_EMULATOR_ADMIN_TOKEN takes printable ASCII without spaces (it is sent as Authorization: Bearer <t>), got "a b"',
    );
  });

  it('a message names what the user set: the variable when a variable set it (D-1177)', () => {
    expect(() => parseCli([], { SVC_EMULATOR_EMBEDDINGS_MODEL: 'm' })).toThrow(
      /^SVC_EMULATOR_EMBEDDINGS_MODEL needs --embeddings-url \(or SVC_EMULATOR_EMBEDDINGS_URL\)$/,
    );
    expect(() => parseCli(['--embeddings-key', 'k'], { SVC_EMULATOR_EMBEDDINGS_DIMENSIONS: '8' })).toThrow(
      /^--embeddings-key and SVC_EMULATOR_EMBEDDINGS_DIMENSIONS need --embeddings-url/,
    );
    expect(() => parseCli([], { SVC_EMULATOR_EMBEDDINGS_URL: 'http://127.0.0.1:1/v1' })).toThrow(/^SVC_EMULATOR_EMBEDDINGS_URL needs --embeddings-model/);
    expect(() => parseCli(['--embeddings-url', 'http://127.0.0.1:1/v1'], {})).toThrow(/^--embeddings-url needs --embeddings-model/);
    const cli = parseCli([], { SVC_EMULATOR_EMBEDDINGS_URL: 'http://127.0.0.1:1/v1', SVC_EMULATOR_EMBEDDINGS_MODEL: 'm' });
    expect(cli.kind === 'start' && cli.options.embeddings).toEqual({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm' });
  });

  it('an unknown option, with the near name when there is one', async () => {
    expect((await refusal({ sede: 1 })).message).toBe('createEmulator: sede is not an option of createEmulator (did you mean seed?)');
    expect((await refusal({ port: 4010 })).message).toBe('createEmulator: port is not an option of createEmulator');
  });

  it('a field of a nested option, a store URL of another database, a port without its method, several at once', async () => {
    expect((await refusal({ siteChat: { visitorTurns: 0 } })).message).toBe('createEmulator: siteChat.visitorTurns must be a whole number from 1; got 0');
    expect((await refusal({ workers: { threads: 2 } })).message).toBe(
      'createEmulator: workers.threads is not a field of workers (an object of maxThreads, idleTimeoutMs, niceIncrement, taskTimeoutMs, maxOldGenerationMb, maxYoungGenerationMb, stackMb, maxBufferMb)',
    );
    const db = await refusal({ db: 'mysql://root:hunter2@127.0.0.1/x' });
    expect(db.message).toContain(
      'db must be a SQLite file path, a postgres:// URL, or { kind: "memory" | "file" | "pglite" | "postgres", ... }; got "mysql://root:***@127.0.0.1/x"',
    );
    expect(db.message).not.toContain('hunter2');
    expect((await refusal({ embedder: { id: 'x', dimensions: 3 } })).errors[0]).toEqual({
      field: 'embedder',
      reason: 'must be an object with embed(); got an object',
    });
    const many = await refusal({ seed: 'x', leaseMs: 10, log: 'stderr', liveFetch: 'yes' });
    expect(many.errors.map((e) => e.field)).toEqual(['seed', 'liveFetch', 'leaseMs', 'log']);
  });

  it('accepts what the docs show, a port given as a class instance (methods on its prototype) too', async () => {
    class Embedder {
      readonly id = 'constant';
      readonly dimensions = 4;
      async embed(texts: string[]) {
        return texts.map(() => Float32Array.of(1, 0, 0, 0));
      }
    }
    for (const options of [
      {},
      { seed: 1 },
      { seed: '42', fixtures: 'none' },
      { db: { kind: 'memory' } },
      { allowedHosts: 'all' },
      { siteChat: { visitorTurns: 3 } },
      { embedder: new Embedder(), seed: undefined },
    ] as EmulatorOptions[]) {
      const emulator = await createEmulator({ log: quiet, ...options });
      await emulator.close();
    }
  });

  it('checks every option of the type: the schema lists exactly the keys of EmulatorOptions', () => {
    // The compile-time check is in options-schema.ts (`satisfies`); this is the run-time list docs/configuration.md is held to.
    expect(EMULATOR_OPTION_NAMES).toContain('seed');
    expect(new Set(EMULATOR_OPTION_NAMES).size).toBe(EMULATOR_OPTION_NAMES.length);
  });
});
