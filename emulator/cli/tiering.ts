import { setFlagsFromString } from 'node:v8';

/**
 * How much bytecode a function runs before V8 queues it for its optimising compiler (D-1070):
 * V8 11's default is 67,584. The CLI's work comes in bursts (hundreds of documents uploaded
 * at once, then quiet), and at the default V8 compiles much of the pipeline's code three
 * times (the serving thread and each pool thread are isolates of their own) on helper
 * threads that take the same two cores: about two thirds of their CPU during an
 * ingestion. At this budget a function is optimised after about four times as much work:
 * the code that stays hot still is, and the code that runs a few thousand times is not.
 */
export const INTERRUPT_BUDGET = 300_000;

/**
 * Sets V8's `--interrupt-budget` for this process before the emulator loads (so for the
 * serving thread's code and for every pool thread started later), unless the operator gave
 * one at launch; only on V8 11 (Node 20 and 21), where it was measured: other versions tier
 * otherwise (Node 22 turns Maglev on), and a flag V8 does not know is an error it prints.
 * The library never does this: a process that imports it is its owner's.
 */
export function tierUpLater(execArgv: readonly string[] = process.execArgv, v8Version: string = process.versions.v8): boolean {
  if (!v8Version.startsWith('11.')) return false;
  if (execArgv.some((flag) => /^--interrupt[-_]budget(=|$)/u.test(flag))) return false;
  setFlagsFromString(`--interrupt-budget=${INTERRUPT_BUDGET}`);
  return true;
}
