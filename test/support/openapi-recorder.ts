// A setup file of the `api` test project: every answer an emulator gives in these tests
// (in process or on a port) is recorded, and `test/conformance/` checks them all against
// the OpenAPI description once every other test file has run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { afterAll, expect, vi } from 'vitest';
import type { Emulator } from '../../emulator/emulator.js';
import { ANSWERS_DIR, type RecordedAnswer } from './answers.js';

const MAX_BODY = 2 * 1024 * 1024;
const ROOT = join(import.meta.dirname, '..', '..');

const answers: RecordedAnswer[] = [];
const reading: Promise<void>[] = [];
// Requests answered by an injected fault (their Request objects).
const faulted = new WeakSet<object>();

function where(): { file: string; test: string } {
  const state = expect.getState();
  return { file: state.testPath ? relative(ROOT, state.testPath) : '(unknown)', test: state.currentTestName ?? '(outside a test)' };
}

function record(request: Request, response: Response, siteSuffix: string, unreadable: boolean): void {
  const url = new URL(request.url);
  // A site's name with the root's dot is the site (D-1180).
  const host = (request.headers.get('host') ?? url.host).toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  const contentType = response.headers.get('content-type');
  const answer: RecordedAnswer = {
    ...where(),
    method: request.method,
    path: url.pathname,
    status: response.status,
    contentType,
    headers: [...response.headers.keys()],
  };
  if (faulted.has(request)) answer.faulted = true;
  if (unreadable) answer.unreadable = true;
  if (host.endsWith(siteSuffix) && !url.pathname.startsWith('/files/')) answer.site = true;
  answers.push(answer);
  if (!contentType || !/json/i.test(contentType) || response.body === null) return;
  if (Number(response.headers.get('content-length') ?? 0) > MAX_BODY) {
    answer.bodyOmitted = 'large';
    return;
  }
  // A copy is read beside the caller, who reads the original as it likes.
  reading.push(
    response
      .clone()
      .text()
      .then((text) => {
        if (text.length > MAX_BODY) answer.bodyOmitted = 'large';
        else answer.body = text;
      })
      .catch(() => {
        answer.bodyOmitted = 'unread';
      }),
  );
}

/** Wraps one emulator's app so that every answer it gives is recorded. */
function instrument(emulator: Emulator): void {
  const siteSuffix = `.${emulator.service.settings.siteDomain.toLowerCase()}`;
  const intercept = emulator.faults.intercept.bind(emulator.faults);
  const mark = (c: Parameters<typeof intercept>[0], error: unknown): never => {
    faulted.add(c.req.raw);
    throw error;
  };
  emulator.faults.intercept = (c) => {
    try {
      const result = intercept(c);
      // Faults shared through the store (SharedFaults) answer as a rejected promise.
      return result instanceof Promise ? result.catch((error: unknown) => mark(c, error)) : result;
    } catch (error) {
      return mark(c, error);
    }
  };
  const app = emulator.app as { fetch: (request: Request, ...rest: unknown[]) => Response | Promise<Response> };
  const fetch = app.fetch;
  app.fetch = (request, ...rest) => {
    const answered = fetch(request, ...rest);
    const unreadable = (rest[0] as { unreadable?: unknown } | undefined)?.unreadable !== undefined;
    const seen = (response: Response) => {
      record(request, response, siteSuffix, unreadable);
      return response;
    };
    return answered instanceof Promise ? answered.then(seen) : seen(answered);
  };
}

// Applied when a test file first imports the emulator (directly or through the package
// entry), so files that never start one pay nothing. The same mock gives `createEmulator`
// the run's store when a test names none (`store.ts`, `SVC_TEST_STORE`).
vi.mock(import('../../emulator/emulator.js'), async (importOriginal) => {
  const module = await importOriginal();
  const init = module.Emulator.prototype.init;
  module.Emulator.prototype.init = function (this: Emulator, ...args: Parameters<typeof init>) {
    instrument(this);
    return init.apply(this, args);
  };
  const { onTestStore } = await import('./store.js');
  return { ...module, createEmulator: onTestStore(module.createEmulator) };
});

afterAll(async () => {
  await Promise.all(reading);
  if (answers.length === 0) return;
  mkdirSync(ANSWERS_DIR, { recursive: true });
  const name = `${basename(answers[0]!.file).replace(/[^A-Za-z0-9.-]+/g, '_')}-${process.pid}-${Date.now()}.jsonl`;
  writeFileSync(join(ANSWERS_DIR, name), `${answers.map((a) => JSON.stringify(a)).join('\n')}\n`);
});
