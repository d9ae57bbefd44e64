import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { fileEmulator } from '../support/emulator.js';
import { send } from '../support/client.js';

const emulator = await fileEmulator();
const served = (await send(emulator, 'GET', '/v1/openapi.json')).body;

// Warnings a truthful description cannot avoid; anything else fails the test.
const KNOWN_WARNINGS = [
  // The description itself: nothing a client sends can make it fail.
  'operation-4xx-response #/paths/~1v1~1openapi.json/get/responses',
  // The home page and the error index: static pages that always answer 200.
  'operation-4xx-response #/paths/~1/get/responses',
  'operation-4xx-response #/paths/~1docs~1errors/get/responses',
  // The union of the chat stream's events: OpenAPI 3.1 has no slot for the items of a
  // stream (3.2 adds `itemSchema`), so it is referenced from `x-itemSchema`, which the linter does not follow.
  'no-unused-components #/components/schemas/ChatEvent',
];

describe('the OpenAPI description under third-party linters', () => {
  it('@redocly lint (recommended rules, the engine of `redocly lint`): 0 errors, only the known warnings', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(served), absoluteRef: 'openapi.json', config });
    const render = (p: (typeof problems)[number]) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}`;
    expect(problems.filter((p) => p.severity === 'error').map((p) => `${render(p)}: ${p.message}`)).toEqual([]);
    expect(
      problems
        .filter((p) => p.severity === 'warn')
        .map(render)
        .sort(),
    ).toEqual([...KNOWN_WARNINGS].sort());
  });

  it("routes that need no key say so with `security: []`; admin routes make the token optional and declare its 401 and the guard's 403", () => {
    expect(served.paths['/files/{assetId}'].get.security).toEqual([]);
    expect(served.paths['/v1/openapi.json'].get.security).toEqual([]);
    expect(served.paths['/v1/agents'].post.security).toEqual([{ apiKey: [] }]);
    const reset = served.paths['/_emulator/reset'].post;
    expect(reset.security).toEqual([{ admin: [] }, {}]);
    expect(reset.responses['401'].description).toContain('svc.auth.unauthorized');
    expect(reset.responses['403'].description).toContain('svc.auth.forbidden');
    // Health is open without the token (readiness probes), refused only to another origin's page.
    expect(served.paths['/_emulator/health'].get.security).toEqual([]);
    // It answers 503 while a shared database is out of reach, like every route; no fault applies to the control plane (no `default`).
    expect(Object.keys(served.paths['/_emulator/health'].get.responses)).toEqual(['200', '403', '500', '503']);
    // Retired routes (deprecated) answer only 410 svc.theme.retired by themselves; a fault may answer anything else.
    expect(Object.keys(served.paths['/v1/agents/{agentId}/theme'].get.responses)).toEqual(expect.arrayContaining(['410', 'default']));
    expect(Object.keys(served.paths['/v1/agents/{agentId}/theme'].get.responses).filter((s) => s.startsWith('2'))).toEqual([]);
    expect(served.paths['/v1/agents/{agentId}/theme'].get.deprecated).toBe(true);
    expect(served.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
  });

  it('@apidevtools/swagger-parser validates it (schema and references)', async () => {
    const api = await SwaggerParser.validate(structuredClone(served));
    expect(Object.keys(api.paths ?? {})).toContain('/v1/agents');
  });

  it('swagger-parser still catches a broken description (the check is live)', async () => {
    const broken = structuredClone(served);
    broken.paths['/v1/agents'].post.responses['201'].content['application/json'].schema = { $ref: '#/components/schemas/Nope' };
    await expect(SwaggerParser.validate(broken)).rejects.toThrow(/Nope/);
  });
});
