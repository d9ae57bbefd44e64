import { setImmediate } from 'node:timers';
/**
 * Resolves after the event loop's next turn (`setImmediate`): requests that arrived
 * meanwhile are read and routed before long work on the serving thread goes on. An
 * awaited promise alone does not do it: its continuation runs before any I/O.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
