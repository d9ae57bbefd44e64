import * as v from 'valibot';
import { html } from 'hono/html';
import { ERROR_CODES, isErrorCode, type ErrorCode } from '../../src/platform/error-codes.js';
import { named } from '../../src/platform/named-schema.js';
import { describeErrorCode } from '../../src/platform/error-docs.js';
import type { Router } from '../../src/platform/route.js';
import { ServiceError } from '../../src/platform/service-error.js';
import { INGEST_FAILURE_DOCS } from '../../src/knowledge/pipeline/ingest-failure-docs.js';
import { htmlPage, jsonPage, prose, wantsJson } from './doc-page.js';

/** Where the error reference is served, whatever `docsUrl` problems point at. */
export const ERRORS_PATH = '/docs/errors';

const CODES = Object.keys(ERROR_CODES) as ErrorCode[];

const ErrorDocSchema = named('ErrorType', v.object({
  code: v.string(),
  status: v.number(),
  title: v.string(),
  when: v.string(),
  fix: v.string(),
  notServed: v.optional(v.string()),
  url: v.string(),
}));
const IngestFailureDocSchema = named('IngestFailureType', v.object({ code: v.string(), when: v.string(), fix: v.string() }));
const ErrorIndexSchema = named('ErrorTypeIndex', v.object({ data: v.array(ErrorDocSchema), ingestFailures: v.array(IngestFailureDocSchema) }));

const pageUrl = (code: string) => `${ERRORS_PATH}/${code}`;
const entry = (code: ErrorCode) => ({ ...describeErrorCode(code), url: pageUrl(code) });
const ingestFailures = () => Object.entries(INGEST_FAILURE_DOCS).map(([code, doc]) => ({ code, ...doc }));

function indexHtml() {
  const rows = CODES.map((code) => {
    const e = describeErrorCode(code);
    return html`<tr><td><a href="${pageUrl(code)}"><code>${code}</code></a></td><td>${e.status}</td><td>${e.title}${e.notServed ? html` <span class="muted">(not served here)</span>` : ''}</td></tr>`;
  });
  const failures = ingestFailures().map(
    (f) => html`<tr><td><code>${f.code === 'fetch_blocked_address' ? 'fetch_blocked_address:<class>' : f.code}</code></td><td>${prose(f.when)}</td><td>${prose(f.fix)}</td></tr>`,
  );
  return html`<h1>Error reference</h1>
<p>Every error is an RFC 9457 problem document. Its <code>type</code> points at the page of its <code>code</code>; clients branch on <code>code</code>, never on <code>detail</code>.</p>
<table><thead><tr><th>Code</th><th>Status</th><th>Title</th></tr></thead><tbody>${rows}</tbody></table>
<h2 id="ingestion">Source ingestion failures</h2>
<p>A knowledge source that fails after it was accepted raises no error: it moves to <code>status: failed</code> with one of these codes in <code>error</code>.</p>
<table><thead><tr><th>Code</th><th>When</th><th>What to do</th></tr></thead><tbody>${failures}</tbody></table>
<p class="muted"><a href="/">svc-emulator</a> · <a href="/v1/openapi.json">OpenAPI</a></p>`;
}

function codeHtml(code: ErrorCode) {
  const e = describeErrorCode(code);
  return html`<p class="muted"><a href="${ERRORS_PATH}">Error reference</a></p>
<h1>${e.title}</h1>
<p><code>${code}</code> · HTTP ${e.status}</p>
${e.notServed ? html`<p class="muted">${e.notServed} The emulator answers this code only when a fault injects it.</p>` : ''}
<h2>When it happens</h2>
<p>${prose(e.when)}</p>
<h2>What to do</h2>
<p>${prose(e.fix)}</p>`;
}

/**
 * The error reference every problem `type` points at: `GET /docs/errors` lists the codes
 * of the registry (and the failure codes of sources), `GET /docs/errors/<code>` is one
 * code's page; HTML, or JSON on `Accept: application/json`. No key needed.
 */
export function registerErrorPages(router: Router): void {
  const tags = ['Docs'];
  router.add(
    {
      method: 'GET', path: ERRORS_PATH, tags, security: 'none', operationId: 'listErrorTypes',
      summary: 'The error reference: every problem code with its status and title, and the failure codes of sources (HTML, or JSON on Accept: application/json)',
      responses: { 200: { description: 'The reference', schema: ErrorIndexSchema, also: ['text/html'] } },
    },
    ({ c }) => (wantsJson(c) ? jsonPage(c, { data: CODES.map(entry), ingestFailures: ingestFailures() }) : htmlPage(c, 200, 'Error reference · svc-emulator', indexHtml())),
  );
  router.add(
    {
      method: 'GET', path: `${ERRORS_PATH}/:code`, tags, security: 'none', operationId: 'getErrorType',
      params: { code: 'A problem code (`svc.agent.invalid`...)' },
      summary: 'One problem code: title, status, when it happens, what to do (the page a problem `type` points at)',
      responses: { 200: { description: 'The page of the code', schema: ErrorDocSchema, also: ['text/html'] } },
      errors: ['svc.resource.not_found'],
    },
    ({ c, params }) => {
      const code = params.code;
      if (!isErrorCode(code)) {
        throw new ServiceError('svc.resource.not_found', { detail: { en: 'No problem code has that name.', es: 'Ningún código de problema tiene ese nombre.' } });
      }
      return wantsJson(c) ? jsonPage(c, entry(code)) : htmlPage(c, 200, `${code} · svc-emulator`, codeHtml(code));
    },
  );
}
