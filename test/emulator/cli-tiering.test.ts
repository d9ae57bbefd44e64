import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tierUpLater } from '../../emulator/cli/tiering.js';

const TIERING = pathToFileURL(join(import.meta.dirname, '../../emulator/cli/tiering.ts')).href;
const V8_11 = process.versions.v8.startsWith('11.');

/** Runs `body` in a fresh process, after the CLI's `tierUpLater` when `tier`; its output. */
function runFresh(tier: boolean, body: string, launchFlags: string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tiering-'));
  const script = join(dir, 'run.mjs');
  writeFileSync(script, `const { tierUpLater } = await import(${JSON.stringify(TIERING)});\nif (${tier}) tierUpLater();\n${body}`);
  // Optimised on the calling thread (`--no-concurrent-recompilation`), so that nothing depends on the machine's load.
  return execFileSync(process.execPath, ['--allow-natives-syntax', '--no-concurrent-recompilation', ...launchFlags, '--import', 'tsx', script], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** How many calls a small function takes before V8 has optimised it. */
function callsBeforeOptimised(tier: boolean): number {
  const out = runFresh(
    tier,
    `function g(a, b) { return (a * 31 + b) % 1000003; }
function f(x) { let s = 0; s = g(s, x); s = g(s, x + 1); s = g(s, x + 2); s = g(s, x + 3); return s; }
let n = 0;
while (n < 5e6) { f(n++); if (n % 100 === 0 && %GetOptimizationStatus(f) & 16) break; }
console.log(n);`,
  );
  return Number(out.trim());
}

/**
 * Of four callees of about 120 bytes of bytecode each, how many V8 inlines into their
 * caller once it is optimised (on request, so no on-stack replacement races with it). A
 * callee asks V8 about itself: V8 11 marks a function `kIsExecuting` (1 << 11) when the
 * frame on top of the stack is its own, which an inlined callee's is not (it runs in the
 * caller's frame). Read from the callees, not from `--trace-turbo-inlining`, whose lines
 * V8 buffers and a process can exit without writing.
 */
function calleesInlined(tier: boolean): number {
  const callee = (k: number) =>
    `function mid${k}(a) { let s = ${k}; for (let i = 0; i < 4; i++) { s += (a * ${31 + k} + i) % ${7 + k}; s ^= a << ${k}; s += (a >> ${k}) + (i * ${k + 2}) % 5; s -= (a & 15) * ${k}; } seen[${k - 1}] = %GetOptimizationStatus(mid${k}); return s; }`;
  const out = runFresh(
    tier,
    `const seen = [0, 0, 0, 0];
${[1, 2, 3, 4].map(callee).join('\n')}
function outer(x) { return mid1(x) + mid2(x + 1) + mid3(x + 2) + mid4(x + 3); }
function warm() { let t = 0; for (let n = 0; n < 100; n++) t += outer(n); return t; }
%PrepareFunctionForOptimization(outer);
for (let k = 0; k < 10; k++) warm();
%OptimizeFunctionOnNextCall(outer);
outer(7);
outer(8);
if (!(%GetOptimizationStatus(outer) & 16)) throw new Error('outer is not optimised');
console.log(seen.filter((status) => !(status & (1 << 11))).length);`,
  );
  return Number(out.trim());
}

describe('the CLI tiers its code up later, and inlines less, than V8 does by default (D-1070, D-1224)', () => {
  it.skipIf(!V8_11)('a function the CLI runs is optimised after much more work than by default', () => {
    const plain = callsBeforeOptimised(false);
    const tiered = callsBeforeOptimised(true);
    expect(plain).toBeLessThan(5e6);
    expect(tiered).toBeGreaterThan(plain * 1.4);
  });

  it.skipIf(!V8_11)('an optimised function takes in fewer of its callees than by default', () => {
    expect(calleesInlined(false)).toBe(4);
    expect(calleesInlined(true)).toBe(2);
  });

  it('leaves each flag given at launch to the operator, and V8s they were not measured on alone', () => {
    const set: string[] = [];
    expect(tierUpLater(['--interrupt-budget=100000'], '11.3.244.8', (flag) => set.push(flag))).toEqual(['--max-inlined-bytecode-size-cumulative=300']);
    expect(tierUpLater(['--interrupt_budget=100000', '--max_inlined_bytecode_size_cumulative=500'], '11.3.244.8', (flag) => set.push(flag))).toEqual([]);
    expect(tierUpLater([], '11.3.244.8', (flag) => set.push(flag))).toEqual(['--interrupt-budget=300000', '--max-inlined-bytecode-size-cumulative=300']);
    expect(tierUpLater([], '12.4.254.21', (flag) => set.push(flag))).toEqual([]);
    expect(set).toEqual(['--max-inlined-bytecode-size-cumulative=300', '--interrupt-budget=300000', '--max-inlined-bytecode-size-cumulative=300']);
  });
});
