import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import * as v from 'valibot';
import { isWellFormedKey } from '../src/auth/api-key.js';
import { ScopeSchema } from '../src/platform/scopes.js';
import { clientText, toFieldErrors } from '../src/platform/validation.js';
import { WorkspaceSettingsPatchSchema } from '../src/workspaces/workspaces.schema.js';
import { packageRoot } from './package-info.js';

const Ref = v.pipe(v.string(), v.regex(/^[a-z0-9-]+$/, 'a ref is lowercase letters, digits and hyphens'));
const Json = v.record(v.string(), v.unknown());

const KeyFixture = v.strictObject({
  name: clientText({ min: 1, max: 80 }),
  scopes: v.union([v.literal('all'), v.pipe(v.array(ScopeSchema), v.minLength(1))]),
  env: v.optional(v.picklist(['test', 'live']), 'test'),
  /** A literal key, so that demos and docs can print it; generated when absent. */
  secret: v.optional(v.pipe(v.string(), v.check(isWellFormedKey, 'must be a well-formed key svc_<env>_<32 base62>_<checksum>'))),
});

/** A file for a multipart upload: inline text, base64 bytes, or a path relative to the fixture file. */
const FileFixture = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1)),
  contentType: v.pipe(v.string(), v.minLength(1)),
  text: v.optional(v.string()),
  base64: v.optional(v.string()),
  path: v.optional(v.string()),
});

const AgentFixture = v.strictObject({
  ref: Ref,
  name: v.string(),
  identity: v.strictObject({ businessName: v.string(), description: v.optional(v.string()) }),
});

// The body of each knowledge add as the API takes it, plus `agent` (a ref) and `kind`.
const KnowledgeFixture = v.variant('kind', [
  v.looseObject({ kind: v.literal('text'), agent: v.optional(Ref) }),
  v.looseObject({ kind: v.literal('url'), agent: v.optional(Ref) }),
  v.looseObject({ kind: v.literal('claim'), agent: v.optional(Ref) }),
  v.strictObject({
    kind: v.literal('upload'),
    agent: v.optional(Ref),
    file: FileFixture,
    title: v.optional(v.string()),
    topics: v.optional(v.array(v.string())),
  }),
]);

const PageFixture = v.looseObject({ agent: v.optional(Ref), publish: v.optional(v.boolean(), false) });

const ProjectFixture = v.looseObject({
  theme: v.optional(Json),
  brand: v.optional(
    v.strictObject({
      logo: v.optional(FileFixture),
      'logo-dark': v.optional(FileFixture),
      favicon: v.optional(FileFixture),
      navbar: v.optional(Json),
      footer: v.optional(Json),
    }),
  ),
  pages: v.optional(v.array(PageFixture), []),
});

const WorkspaceFixture = v.strictObject({
  name: clientText({ min: 1, max: 80 }),
  plan: v.optional(v.string()),
  settings: v.optional(WorkspaceSettingsPatchSchema),
  keys: v.optional(v.pipe(v.array(KeyFixture), v.maxLength(2, 'a workspace has at most two active keys')), []),
  agents: v.optional(v.array(AgentFixture), []),
  knowledge: v.optional(v.array(KnowledgeFixture), []),
  projects: v.optional(v.array(ProjectFixture), []),
});

export const FixtureSchema = v.strictObject({
  $schema: v.optional(v.string()),
  description: v.optional(v.string()),
  /** The offline web that URL sources are fetched from (`PUT /_emulator/web`). */
  web: v.optional(Json),
  workspaces: v.array(WorkspaceFixture),
});

export type Fixture = v.InferOutput<typeof FixtureSchema> & { baseDir?: string };
/** A fixture as written (defaults may be left out). */
export type FixtureInput = v.InferInput<typeof FixtureSchema>;
export type FileSpec = v.InferOutput<typeof FileFixture>;

export class FixtureError extends Error {}

/** Reads and validates a fixture: `demo` (bundled), a file path, or an object. */
export function readFixture(source: 'demo' | string | unknown): Fixture {
  let raw: unknown = source;
  let origin = 'fixture';
  let baseDir: string | undefined;
  if (typeof source === 'string') {
    origin = source === 'demo' ? 'the bundled demo fixture' : source;
    const path = source === 'demo' ? join(packageRoot(), 'fixtures', 'demo.json') : source;
    baseDir = dirname(path);
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new FixtureError(`cannot read fixtures ${origin}: ${(error as Error).message}`);
    }
  }
  const result = v.safeParse(FixtureSchema, raw);
  if (!result.success) {
    const first = toFieldErrors(result.issues)[0]!;
    throw new FixtureError(`invalid fixtures ${origin}: field ${first.field}: ${first.reason}`);
  }
  return { ...result.output, ...(baseDir && { baseDir }) };
}

/** The bytes of a fixture file. */
export function fileBytes(file: FileSpec, baseDir: string | undefined): Uint8Array {
  if (file.text !== undefined) return new TextEncoder().encode(file.text);
  if (file.base64 !== undefined) return Buffer.from(file.base64, 'base64');
  if (file.path !== undefined) return readFileSync(isAbsolute(file.path) ? file.path : join(baseDir ?? process.cwd(), file.path));
  throw new FixtureError(`fixture file ${file.name} needs text, base64 or path`);
}
