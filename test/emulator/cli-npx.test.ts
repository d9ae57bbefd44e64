import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closesWithin, freePort, runToEnd } from '../support/cli.js';
import { shellBlocks } from '../support/doc-blocks.js';

// Through `npx svc-emulator`, from the project directory, in a real shell: as CI runs it.
// npm 11 puts the package's own bin in its npx cache on the first run (a few seconds).
const DEMO_KEY = 'svc_test_DemoFullAccessKey000000000000001_0k1rIW';
const TIMEOUT = 90_000;

/** The first shell block of a doc that contains `marker`. */
function docBlock(file: string, marker: string): string {
  const block = shellBlocks(file).find((b) => b.code.includes(marker));
  if (!block) throw new Error(`${file} has no sh block with ${marker}`);
  return `${block.code}\n`;
}

/** A command that checks what exec or the recipe hands over, and exits 0 only if it works. */
const CHECK = `node -e "fetch(process.env.SVC_EMULATOR_URL + '/v1/me', { headers: { authorization: 'Bearer ${DEMO_KEY}' } }).then((r) => process.exit(r.status === 200 ? 0 : 9))"`;

const bash = (script: string, env: Record<string, string> = {}) => runToEnd(['-c', script], { command: 'bash', env });

// The npx cache is set up once, before the timed tests: on a loaded machine that first run
// alone has taken most of a test's 90 s, which is npm's work, not the behaviour under test.
beforeAll(async () => {
  const warm = await bash('npx svc-emulator --version');
  expect(warm.code, warm.stderr).toBe(0);
}, 300_000);

/** Servers a failed run left behind, by pid: they must not outlive the test file. */
const servers: number[] = [];
afterAll(() => {
  for (const pid of servers) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
});

describe('npx svc-emulator in the background, killed as CI kills it', () => {
  // Starts npx in the background, waits for the ready line, kills npx ($!) with the
  // signal, and prints the URL and the server's pid (npm's child, or the child of the
  // shell npm runs it with); bash returns at once, without waiting for anything.
  const script = `
    OUT=$(mktemp)
    npx svc-emulator --port 0 --fixtures none > "$OUT" 2>/dev/null &
    NPX=$!
    until grep -q 'start here' "$OUT"; do kill -0 $NPX 2>/dev/null || exit 3; sleep 0.1; done
    CHILD=$(pgrep -P $NPX)
    GRANDCHILD=$(pgrep -P $CHILD)
    echo "$(head -1 "$OUT" | cut -d' ' -f4) \${GRANDCHILD:-$CHILD}"
    kill -$SIG $NPX`;

  for (const signal of ['TERM', 'INT', 'KILL']) {
    it(
      `kill -${signal} $!: no server on the port within 2 s`,
      async () => {
        const run = await bash(script, { SIG: signal });
        expect(run.code, run.stderr).toBe(0);
        const [url = '', pid] = run.stdout.trim().split(' ');
        servers.push(Number(pid));
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(await closesWithin(url, 2000)).toBeLessThan(2000);
      },
      TIMEOUT,
    );
  }
});

describe('npx svc-emulator exec', () => {
  it(
    'passes the URL and the key, and the exit code through',
    async () => {
      const ok = await bash(`npx svc-emulator exec -- ${CHECK}`);
      expect(ok.code, ok.stderr).toBe(0);
      const status = await bash(`npx svc-emulator exec --fixtures none -- node -e "process.exit(process.env.SVC_EMULATOR_URL ? 42 : 1)"`);
      // Its stderr in the message: a CI run saw 134 (an abort) here, a thread ended inside Node's require(esm) (D-1203, D-1225).
      expect(status.code, status.stderr).toBe(42);
      const missing = await bash('npx svc-emulator exec --fixtures none -- svc-no-such-command-xyz');
      expect(missing.code, missing.stderr).toBe(127);
      expect(missing.stderr).toContain('svc-emulator: exec: command not found: svc-no-such-command-xyz\n');
    },
    TIMEOUT,
  );

  it(
    'kill -INT on npx while exec runs a command: the command gets SIGTERM, then the emulator stops',
    async () => {
      const run = await bash(`
      OUT=$(mktemp)
      npx svc-emulator exec --fixtures none -- node -e "process.on('SIGTERM', () => { console.log('command got SIGTERM'); process.exit(3) }); console.log('command up ' + process.env.SVC_EMULATOR_URL); setInterval(() => {}, 1000)" > "$OUT" 2>&1 &
      NPX=$!
      until grep -q 'command up' "$OUT"; do kill -0 $NPX 2>/dev/null || exit 3; sleep 0.1; done
      kill -INT $NPX
      wait $NPX
      cat "$OUT"`);
      expect(run.stdout).toContain('command got SIGTERM');
      expect(run.stdout).toContain('svc-emulator: stopping: the process that started it was interrupted (SIGINT)');
      const url = /command up (\S+)/.exec(run.stdout)![1]!;
      expect(await closesWithin(url, 2000)).toBeLessThan(2000);
    },
    TIMEOUT,
  );
});

describe('the CI recipes of README.md and docs/cli-and-ci.md run as written, through npx', () => {
  it(
    'exec',
    async () => {
      const block = docBlock('README.md', 'svc-emulator exec --');
      expect(block).toMatch(/^npx svc-emulator exec -- npm test +# [^\n]*\n$/);
      expect(docBlock('docs/cli-and-ci.md', 'svc-emulator exec --').startsWith(block)).toBe(true);
      const run = await bash(block.replace('npm test', CHECK));
      expect(run.code, run.stderr).toBe(0);
    },
    TIMEOUT,
  );

  it(
    "start in the background, wait, test, stop: the status is the tests', and the server is gone within 2 s",
    async () => {
      const port = String(await freePort());
      const block = docBlock('docs/cli-and-ci.md', 'EMULATOR=$!').replaceAll('4010', port);
      const run = await bash(block.replace('npm test', CHECK));
      expect(run.code, run.stderr).toBe(0);
      expect(await closesWithin(`http://127.0.0.1:${port}`, 2000)).toBeLessThan(2000);
      const failing = await bash(
        docBlock('docs/cli-and-ci.md', 'EMULATOR=$!')
          .replaceAll('4010', String(await freePort()))
          .replace('npm test', 'node -e "process.exit(4)"'),
      );
      expect(failing.code).toBe(4);
    },
    TIMEOUT,
  );
});
