// The entry of a worker thread when the worker modules are TypeScript sources (tests,
// benchmarks run from the sources). Node 20 applies no `--import` loader to worker
// threads, so this plain module registers tsx (a devDependency) in the thread, then
// imports the task's module. Built code never comes here: `WorkerPool` sends `.js`
// modules to piscina directly.
import { register } from 'tsx/esm/api';

register();

/** Runs `name` of the TypeScript module `module` on the task's envelope. */
export async function run({ module, name, envelope }) {
  const mod = await import(module);
  return mod[name](envelope);
}
