import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { HashingEmbedder } from '../../src/knowledge/pipeline/embedder.js';
import type { LoadedKey } from '../fixture-loader.js';
import { fileBytes, type FileSpec, type Fixture } from '../fixtures.js';
import { packageRoot, packageVersion } from '../package-info.js';
import { STATE_VERSION, type StateDocument } from '../state.js';
import type { IdCall } from './id-tap.js';

export const PREBUILT_FORMAT = 'svc-emulator-prebuilt-state';
/** The layout of the file and the relocation it expects; a change of either bumps it. */
export const PREBUILT_VERSION = 1;

/**
 * What the prebuilt state was made from (D-186). It is used only when every field
 * equals this run's; otherwise the fixtures are loaded.
 */
export interface PrebuiltKey {
  format: number;
  /** The package version: a new release may load differently in ways no id names. */
  version: string;
  /** SHA-256 of the fixture as parsed (defaults applied) and of every file it reads. */
  fixtures: string;
  /** The schema: the migrations applied, in order. */
  migrations: string[];
  /** The state document version the rows are in. */
  state: number;
  /** The ids of what ingestion stores (the embedder's; issue 14 adds the analyzer's). */
  ingestion: Record<string, string>;
}

/** `dist/demo-state.json`: the demo loaded once by `npm run build`, ready to relocate. */
export interface PrebuiltState {
  format: typeof PREBUILT_FORMAT;
  key: PrebuiltKey;
  /** The frozen instant the template was loaded at; times in `state` are relative to it. */
  epoch: number;
  /** Every id and secret the load drew, in order. */
  calls: IdCall[];
  /** The keys the load made (the banner's); their workspace ids are relocated too. */
  keys: LoadedKey[];
  /** The state after the load, key hashes in the clear (the demo's keys are public). */
  state: StateDocument;
}

/** Where `npm run build` writes the prebuilt demo and the built package reads it. */
export function prebuiltPath(): string {
  return join(packageRoot(), 'dist', 'demo-state.json');
}

/**
 * Whether this code runs from its TypeScript sources (tsx, vitest). Those runs load the
 * fixtures: the prebuilt state belongs to the `dist/` built beside it, and sources may
 * have changed since (D-186).
 */
export const RUNNING_FROM_SOURCES = import.meta.url.endsWith('.ts');

function fixtureFiles(fixture: Fixture): FileSpec[] {
  const files: FileSpec[] = [];
  for (const w of fixture.workspaces) {
    for (const k of w.knowledge) if (k.kind === 'upload') files.push(k.file);
    for (const p of w.projects) for (const slot of ['logo', 'logo-dark', 'favicon'] as const) if (p.brand?.[slot]) files.push(p.brand[slot]);
  }
  return files;
}

/** The key of a prebuilt state made from `fixture` by this code. */
export function prebuiltKey(fixture: Fixture): PrebuiltKey {
  const { baseDir, ...content } = fixture;
  const hash = createHash('sha256').update(JSON.stringify(content));
  for (const file of fixtureFiles(fixture)) hash.update('\0').update(fileBytes(file, baseDir));
  return {
    format: PREBUILT_VERSION,
    version: packageVersion(),
    fixtures: hash.digest('hex'),
    migrations: Object.keys(MIGRATIONS),
    state: STATE_VERSION,
    ingestion: { embedder: new HashingEmbedder().id },
  };
}

/** What reading the prebuilt demo gave: the state, or why it is not used. */
export type PrebuiltLookup = { state: PrebuiltState } | { why: string };

/** Reads the prebuilt demo and checks its key against `fixture` and this code. */
export function readPrebuilt(fixture: Fixture, path = prebuiltPath()): PrebuiltLookup {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { why: `${path} is missing (npm run build writes it)` };
  }
  let doc: PrebuiltState;
  try {
    doc = JSON.parse(text) as PrebuiltState;
  } catch {
    return { why: `${path} is not JSON` };
  }
  if (doc?.format !== PREBUILT_FORMAT || typeof doc.key !== 'object' || doc.key === null) return { why: `${path} is not a prebuilt state` };
  const want = prebuiltKey(fixture);
  const differs = (Object.keys(want) as (keyof PrebuiltKey)[]).filter((field) => JSON.stringify(doc.key[field]) !== JSON.stringify(want[field]));
  if (differs.length) return { why: `${path} was built from another ${differs.join(', ')}` };
  return { state: doc };
}
