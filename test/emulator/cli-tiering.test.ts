import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tierUpLater } from '../../emulator/cli/tiering.js';

const TIERING = pathToFileURL(join(import.meta.dirname, '../../emulator/cli/tiering.ts')).href;

/**
 * How many calls a small function takes before V8 has optimised it, in a fresh process
 * (`tier`: whether the CLI's `tierUpLater` ran first). Optimised on the calling thread
 * (`--no-concurrent-recompilation`), so the count does not depend on the machine's load.
 */
function callsBeforeOptimised(tier: boolean, launchFlags: string[] = []): number {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tiering-'));
  const script = join(dir, 'count.mjs');
  writeFileSync(
    script,
    `const { tierUpLater } = await import(${JSON.stringify(TIERING)});
if (${tier}) tierUpLater();
function g(a, b) { return (a * 31 + b) % 1000003; }
function f(x) { let s = 0; s = g(s, x); s = g(s, x + 1); s = g(s, x + 2); s = g(s, x + 3); return s; }
let n = 0;
while (n < 5e6) { f(n++); if (n % 100 === 0 && %GetOptimizationStatus(f) & 16) break; }
console.log(n);`,
  );
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--no-concurrent-recompilation', ...launchFlags, '--import', 'tsx', script], {
    encoding: 'utf8',
  });
  return Number(out.trim());
}

describe('the CLI tiers its code up later than V8 does by default (D-1070)', () => {
  it.skipIf(!process.versions.v8.startsWith('11.'))('a function the CLI runs is optimised after much more work than by default', () => {
    const plain = callsBeforeOptimised(false);
    const tiered = callsBeforeOptimised(true);
    expect(plain).toBeLessThan(5e6);
    expect(tiered).toBeGreaterThan(plain * 1.4);
  });

  it('leaves a budget given at launch to the operator, and V8s it was not measured on alone', () => {
    expect(tierUpLater(['--interrupt-budget=100000'], '11.3.244.8')).toBe(false);
    expect(tierUpLater(['--interrupt_budget=100000'], '11.3.244.8')).toBe(false);
    expect(tierUpLater([], '12.4.254.21')).toBe(false);
  });
});
