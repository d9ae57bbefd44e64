// Runs after every other test file (vitest project `conformance`, groupOrder 1): each
// answer those tests received from an emulator is checked against the OpenAPI
// description the emulator serves at /v1/openapi.json.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../emulator/emulator.js';
import { ANSWERS_DIR, type RecordedAnswer } from '../support/answers.js';
import { ConformanceChecker, mismatchReport, type OpenApiDoc, type Verdict } from '../support/openapi-conformance.js';

function recordedAnswers(): RecordedAnswer[] {
  if (!existsSync(ANSWERS_DIR)) return [];
  return readdirSync(ANSWERS_DIR)
    .filter((name) => name.endsWith('.jsonl'))
    .flatMap((name) =>
      readFileSync(join(ANSWERS_DIR, name), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as RecordedAnswer),
    );
}

const emulator = await createEmulator();
const doc = (await (await emulator.request('/v1/openapi.json')).json()) as OpenApiDoc;
await emulator.close();
const answers = recordedAnswers();

describe('every answer the tests received, against the served OpenAPI description', () => {
  it('answers were recorded (run with the other tests: `npx vitest run`)', () => {
    expect(answers.length, `no recorded answers in ${ANSWERS_DIR}: this file checks what the other test files received`).toBeGreaterThan(0);
  });

  it('zero mismatches: route and method, status, media type, JSON body and required headers as declared', () => {
    const checker = new ConformanceChecker(doc);
    const report = mismatchReport(checker, answers);
    expect(report, `${report.length} kinds of mismatch:\n${report.join('\n')}`).toEqual([]);
    const verdicts = answers.map((answer) => ({ answer, verdict: checker.check(answer) }));

    const count = (kind: Verdict['kind']) => verdicts.filter((v) => v.verdict.kind === kind).length;
    const checked = verdicts.flatMap(({ verdict }) => (verdict.kind === 'checked' ? [verdict] : []));
    const operations = Object.values(doc.paths).flatMap((item) => Object.keys(item)).length;
    const exercised = new Set(checked.map((v) => v.operation));
    console.info(
      `OpenAPI conformance: ${answers.length} answers; ${checked.length} checked (${checked.filter((v) => v.bodyChecked).length} JSON bodies validated), ` +
        `${count('unknown-route')} to unknown routes, ${answers.filter((a) => a.faulted && !a.site).length} injected faults checked as problems, ${count('aside')} aside (hosted sites, UI files, requests the server could not read); ` +
        `${exercised.size} of ${operations} operations exercised`,
    );
  });

  it('the check is live: a wrong status, media type, body or missing header is a mismatch', () => {
    const checker = new ConformanceChecker(doc);
    const agent = { id: 'agt_1', name: 'Ada', identity: { businessName: 'Acme', description: '' }, createdAt: 'x', updatedAt: 'x' };
    const base: RecordedAnswer = {
      file: 'made up',
      test: 'made up',
      method: 'GET',
      path: '/v1/agents/agt_1',
      status: 200,
      contentType: 'application/json',
      headers: ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit', 'ratelimit-policy'],
      body: JSON.stringify(agent),
    };
    expect(checker.check(base)).toEqual({ kind: 'checked', operation: 'GET /v1/agents/{agentId}', bodyChecked: true });
    const wrong = (change: Partial<RecordedAnswer>) => (checker.check({ ...base, ...change }) as { reason?: string }).reason;
    expect(wrong({ status: 418 })).toMatch(/status 418 is not declared/);
    expect(wrong({ contentType: 'text/html' })).toMatch(/sends text\/html/);
    expect(wrong({ body: JSON.stringify({ ...agent, name: 42 }) })).toMatch(/\/name must be string/);
    expect(wrong({ headers: base.headers.filter((h) => h !== 'ratelimit') })).toMatch(/required header RateLimit/);
    // A problem whose code the route does not declare for that status.
    const problem = {
      type: 'http://localhost/docs/errors/svc.page.not_found',
      title: 'Page not found',
      status: 404,
      detail: 'd',
      instance: '/v1/agents/agt_1',
      code: 'svc.page.not_found',
      requestId: 'req_1',
    };
    const problemHeaders = [...base.headers, 'x-content-type-options'];
    expect(wrong({ status: 404, contentType: 'application/problem+json', headers: problemHeaders, body: JSON.stringify(problem) })).toMatch(
      /\/code must be equal to one of the allowed values \["svc.agent.not_found"\]/,
    );
    // A problem document sent without nosniff (D-872).
    expect(wrong({ status: 404, contentType: 'application/problem+json', body: JSON.stringify({ ...problem, code: 'svc.agent.not_found' }) })).toMatch(
      /lacks the required header X-Content-Type-Options/,
    );
    expect(wrong({ method: 'PUT', path: '/v1/nothing', status: 200, body: '{}' })).toMatch(/not an answer of an unknown route/);
    // A request the server could not read (D-1117): 400 svc.request.invalid and nothing else.
    const unreadable: RecordedAnswer = {
      ...base,
      unreadable: true,
      status: 400,
      contentType: 'application/problem+json',
      headers: ['x-request-id', 'x-content-type-options'],
      body: JSON.stringify({ ...problem, status: 400, title: 'Malformed request', code: 'svc.request.invalid' }),
    };
    expect(checker.check(unreadable)).toEqual({ kind: 'aside', why: 'unreadable' });
    expect(wrong({ ...unreadable, status: 200, contentType: 'application/json', body: JSON.stringify(agent) })).toMatch(/not 400 svc.request.invalid/);
    expect(wrong({ ...unreadable, headers: ['x-request-id'] })).toMatch(/lacks the header x-content-type-options/);

    // An injected fault: any status and code of the registry, as a problem with nosniff (D-874).
    const fault: RecordedAnswer = {
      ...base,
      faulted: true,
      status: 418,
      contentType: 'application/problem+json',
      headers: ['x-request-id', 'x-content-type-options'],
      body: JSON.stringify({ ...problem, status: 418, code: 'svc.auth.forbidden' }),
    };
    expect(checker.check(fault)).toEqual({ kind: 'checked', operation: 'GET /v1/agents/{agentId}', bodyChecked: true });
    expect(checker.check({ ...fault, status: 404, body: JSON.stringify({ ...problem, code: 'svc.billing.limit_reached' }) }).kind).toBe('checked');
    const wrongFault = (change: Partial<RecordedAnswer>) => (checker.check({ ...fault, ...change }) as { reason?: string }).reason;
    expect(wrongFault({ headers: ['x-request-id'] })).toMatch(/lacks the required header X-Content-Type-Options/);
    expect(wrongFault({ body: JSON.stringify({ ...problem, code: 'svc.nope' }) })).toMatch(/\/code must be equal to one of the allowed values/);
    expect(wrongFault({ contentType: 'text/html', body: undefined })).toMatch(/sends text\/html/);
    // The control plane takes no fault: a status it does not declare is a mismatch there.
    expect(wrongFault({ path: '/_emulator/clock' })).toMatch(/not declared and the route has no default/);
    // Every answer the emulator may give unasked-for is declared: 500 and 503 on every route.
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        expect(Object.keys(op.responses), `${method} ${path}`).toEqual(
          expect.arrayContaining(['500', '503', ...(path.startsWith('/_emulator/') ? [] : ['default'])]),
        );
      }
    }

    // Among good answers, one wrong one makes the report (and so the test above) fail, naming it.
    const recorded = [base, { ...base, test: 'sends a number for a name', body: JSON.stringify({ ...agent, name: 42 }) }, base];
    expect(mismatchReport(checker, [base, base])).toEqual([]);
    expect(mismatchReport(checker, recorded)).toEqual([
      'GET /v1/agents/{agentId}: 200 application/json body: /name must be string (×1; first in made up › sends a number for a name)',
    ]);
  });
});
