import { join } from 'node:path';

/** Where the test run writes every answer it received (one JSON-lines file per test file). */
export const ANSWERS_DIR = join(import.meta.dirname, '..', '..', '.vitest-tmp', 'openapi-answers');

/** One answer an emulator gave during the tests, as `openapi-recorder.ts` writes it. */
export interface RecordedAnswer {
  /** The test file and test that sent the request. */
  file: string;
  test: string;
  method: string;
  path: string;
  status: number;
  /** The `Content-Type` header as sent, or null. */
  contentType: string | null;
  /** Names of the headers sent, lowercase. */
  headers: string[];
  /** The text of a JSON body; absent for other bodies and for the few too large to keep. */
  body?: string;
  /** Why a body was not kept. */
  bodyOmitted?: 'large' | 'unread';
  /** Answered by a fault the test injected (`POST /_emulator/faults`): any status and code. */
  faulted?: boolean;
  /** Answered by a hosted site (`<slug>.<siteDomain>`), not the API. */
  site?: boolean;
  /** A request the server could not make a URL of (a malformed `Host`, a backslash): no route's answer (D-1117). */
  unreadable?: boolean;
}
