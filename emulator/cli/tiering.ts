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
 * How much bytecode V8's optimising compiler inlines into one function, callees' included
 * (D-1224): V8 11's default is 920. A compilation's cost grows with the graph it inlines,
 * and after D-1070 compiling was still about 60% of V8's helper threads' CPU during an
 * ingestion; at this cap the small callees are still inlined, the large call trees not.
 */
export const INLINED_BYTECODE_CUMULATIVE = 300;

/** The flags `tierUpLater` sets, by name. */
const FLAGS: readonly (readonly [name: string, value: number])[] = [
  ['interrupt-budget', INTERRUPT_BUDGET],
  ['max-inlined-bytecode-size-cumulative', INLINED_BYTECODE_CUMULATIVE],
];

/**
 * Sets V8's `--interrupt-budget` and `--max-inlined-bytecode-size-cumulative` for this
 * process before the emulator loads (so for the serving thread's code and for every pool
 * thread started later), each unless the operator gave it at launch; only on V8 11 (Node
 * 20 and 21), where they were measured: other versions tier otherwise (Node 22 turns
 * Maglev on), and a flag V8 does not know is an error it prints. Returns the flags it set.
 * The library never does this: a process that imports it is its owner's.
 */
export function tierUpLater(
  execArgv: readonly string[] = process.execArgv,
  v8Version: string = process.versions.v8,
  setFlag: (flag: string) => void = setFlagsFromString,
): string[] {
  if (!v8Version.startsWith('11.')) return [];
  const given = (name: string) => {
    const spelled = new RegExp(`^--${name.replace(/-/gu, '[-_]')}(=|$)`, 'u');
    return execArgv.some((flag) => spelled.test(flag));
  };
  const set = FLAGS.filter(([name]) => !given(name)).map(([name, value]) => `--${name}=${value}`);
  for (const flag of set) setFlag(flag);
  return set;
}
