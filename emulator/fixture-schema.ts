import { toJsonSchema } from '@valibot/to-json-schema';
import { textActionsToJsonSchema } from '../src/platform/validation.js';
import { FixtureSchema } from './fixtures.js';

/** The JSON Schema of the fixture format, from the valibot schema that validates it. */
export function fixtureJsonSchema(): object {
  return {
    ...toJsonSchema(FixtureSchema, { target: 'draft-2020-12', typeMode: 'input', errorMode: 'ignore', overrideAction: textActionsToJsonSchema }),
    title: 'svc-emulator fixture',
    description: 'Workspaces, keys, agents, knowledge, projects (theme, brand, pages) and the offline web, loaded through the public API.',
  };
}

/** `node --import tsx emulator/fixture-schema.ts` rewrites fixtures/fixture.schema.json. */
if (import.meta.url === `file://${process.argv[1]}`) {
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { packageRoot } = await import('./package-info.js');
  writeFileSync(join(packageRoot(), 'fixtures', 'fixture.schema.json'), `${JSON.stringify(fixtureJsonSchema(), null, 2)}\n`);
}
