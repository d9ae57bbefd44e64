import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { isWellFormedKey } from '../src/auth/api-key.js';
import { SCOPES, ScopeSchema } from '../src/platform/scopes.js';
import { toFieldErrors } from '../src/platform/validation.js';
import { WorkspaceSettingsPatchSchema } from '../src/workspaces/workspaces.schema.js';
import type { Service } from '../src/service.js';
import { packageRoot } from './package-info.js';

const KeyFixture = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(80)),
  scopes: v.union([v.literal('all'), v.pipe(v.array(ScopeSchema), v.minLength(1))]),
  env: v.optional(v.picklist(['test', 'live']), 'test'),
  /** A literal key, so that demos and docs can print it; generated when absent. */
  secret: v.optional(v.pipe(v.string(), v.check(isWellFormedKey, 'must be a well-formed key svc_<env>_<32 base62>_<checksum>'))),
});

const WorkspaceFixture = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(80)),
  plan: v.optional(v.string()),
  settings: v.optional(WorkspaceSettingsPatchSchema),
  keys: v.optional(v.pipe(v.array(KeyFixture), v.maxLength(2, 'a workspace has at most two active keys')), []),
});

export const FixtureSchema = v.strictObject({
  $schema: v.optional(v.string()),
  description: v.optional(v.string()),
  workspaces: v.array(WorkspaceFixture),
});

export type Fixture = v.InferOutput<typeof FixtureSchema>;

export class FixtureError extends Error {}

/** Reads and validates a fixture: `demo` (bundled), a file path, or an object. */
export function readFixture(source: 'demo' | string | unknown): Fixture {
  let raw: unknown = source;
  let origin = 'fixture';
  if (typeof source === 'string') {
    origin = source === 'demo' ? 'the bundled demo fixture' : source;
    const path = source === 'demo' ? join(packageRoot(), 'fixtures', 'demo.json') : source;
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
  return result.output;
}

export interface LoadedKey {
  workspaceId: string;
  workspace: string;
  name: string;
  scopes: string[];
  secret: string;
}

/** Creates what the fixture describes through the services, so the same rules apply. */
export async function loadFixture(service: Service, fixture: Fixture): Promise<LoadedKey[]> {
  const keys: LoadedKey[] = [];
  for (const w of fixture.workspaces) {
    const ws = await service.workspaces.create({ name: w.name, plan: w.plan });
    if (w.settings) await service.workspaces.update(ws.id, w.settings);
    for (const k of w.keys) {
      const scopes = k.scopes === 'all' ? [...SCOPES] : k.scopes;
      const created = await service.auth.createKey(ws.id, { name: k.name, scopes, env: k.env }, { secret: k.secret });
      keys.push({ workspaceId: ws.id, workspace: w.name, name: k.name, scopes, secret: created.secret });
    }
  }
  return keys;
}
