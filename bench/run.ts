/**
 * Runs the benchmarks: `npm run bench` (all) or `npm run bench -- http` (one).
 * Each prints its figures next to a baseline measured in the same run.
 */
const available = ['http', 'retrieval', 'ingest', 'hostile', 'relevance', 'multiprocess', 'concurrency', 'lists'];
const wanted = process.argv.slice(2);
for (const name of wanted.length ? wanted : available) {
  if (!available.includes(name)) {
    console.error(`unknown benchmark ${name}; available: ${available.join(', ')}`);
    process.exit(2);
  }
  console.log(`\n== bench/${name}`);
  const mod = (await import(`./${name}/index.ts`)) as { run: () => Promise<void> };
  await mod.run();
}
