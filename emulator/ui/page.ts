import { ERROR_CODES } from '../../src/platform/error-codes.js';
import { escapeHtml } from '../sites/markdown.js';
import { UI_PATH } from './ui-paths.js';

/** Source failures a fault can queue (a few of `INJECTABLE_INGEST_FAILURE`'s; the control plane takes them all). */
export const INGEST_CHOICES = [
  'fetch_timeout', 'fetch_dns_failed', 'fetch_response_too_large', 'unsupported_document', 'ingest_failed',
  'fetch_blocked_address:private', 'fetch_blocked_address:loopback',
];

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function options(values: { value: string; label: string }[]): string {
  return values.map(({ value, label }) => `<option value="${escapeHtml(value)}">${escapeHtml(label)}</option>`).join('');
}

function problemBox(): string {
  return '<div class="problem" role="alert" hidden></div><p class="note" role="status" hidden></p>';
}

const RESOURCE_KINDS: [id: string, title: string, columns: string[]][] = [
  ['sources', 'Sources', ['Title', 'Kind', 'Status', 'Agent', 'Chunks', 'Updated']],
  ['agents', 'Agents', ['Name', 'Business', 'Id', '']],
  ['projects', 'Projects', ['Name', 'Address', 'Languages', 'Id']],
  ['pages', 'Pages', ['Path', 'Title', 'Status', 'Project']],
  ['assets', 'Assets', ['', 'Kind', 'Type', 'Size', 'Key']],
  ['keys', 'Keys', ['Name', 'Prefix', 'Scopes', 'Env', 'Revoked']],
];

function resourceSection([id, title, columns]: (typeof RESOURCE_KINDS)[number]): string {
  const head = columns.map((c) => `<th scope="col">${escapeHtml(c)}</th>`).join('');
  return `<details open data-kind="${id}"><summary>${title} <span class="count" data-count="${id}"></span></summary>
      <table><thead><tr>${head}</tr></thead><tbody data-rows="${id}"></tbody></table></details>`;
}

/**
 * The UI's one page: every panel's frame and forms, rendered here; the data comes from
 * the control plane through the page's script (`ui.js`), which sends the admin token
 * when one is needed. Nothing inline: the CSP allows only the files under the UI path.
 */
export function renderUiPage(version: string): string {
  const codes = Object.entries(ERROR_CODES).map(([code, spec]) => ({ value: code, label: `${spec.status} ${code}` }));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc-emulator UI</title>
<link rel="icon" href="${UI_PATH}/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${UI_PATH}/ui.css">
<script type="module" src="${UI_PATH}/ui.js"></script>
</head>
<body>
<header class="top">
  <h1>svc-emulator <span class="version">${escapeHtml(version)}</span></h1>
  <p class="clock-badge" title="Emulated clock"><span id="clock-badge">…</span></p>
  <p id="connection" role="status"></p>
  <button type="button" id="token-button" hidden>Admin token</button>
</header>
<main class="grid">
  <section class="panel" id="workspaces" aria-labelledby="workspaces-title">
    <h2 id="workspaces-title">Workspaces</h2>
    <form id="workspace-create" class="row" novalidate>
      <label>Name <input name="name" maxlength="80" placeholder="My workspace"></label>
      <label>Plan <input name="plan" maxlength="40" placeholder="free" size="8"></label>
      <label>Credits <input name="credits" type="number" min="0" step="1" size="6"></label>
      <button type="submit">Create</button>
    </form>
    <p class="hint">Made without a key; mint one with <code>POST /workspaces/{id}/keys</code>.</p>
    ${problemBox()}
    <table><thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Plan</th><th scope="col">Credits</th></tr></thead>
      <tbody id="workspace-rows"></tbody></table>
  </section>

  <section class="panel span-2" id="resources" aria-labelledby="resources-title">
    <h2 id="resources-title">Resources <span id="resources-name" class="muted">(select a workspace)</span></h2>
    <div class="row" id="resources-bar" hidden>
      <p id="resources-credits"></p>
      <button type="button" id="workspace-delete" class="danger">Delete workspace</button>
    </div>
    ${problemBox()}
    <div id="resources-body" hidden>
      ${RESOURCE_KINDS.map(resourceSection).join('\n      ')}
    </div>
  </section>

  <section class="panel" id="chat" aria-labelledby="chat-title">
    <h2 id="chat-title">Chat</h2>
    <form id="chat-form" novalidate>
      <label>Agent <select name="agent" id="chat-agent" required><option value="">(select a workspace)</option></select></label>
      <label class="grow">Message <textarea name="message" rows="2" maxlength="4000" required></textarea></label>
      <div class="row"><button type="submit">Send</button><button type="button" id="chat-new">New conversation</button></div>
    </form>
    ${problemBox()}
    <ol id="chat-log" class="chat-log" aria-live="polite"></ol>
  </section>

  <section class="panel span-3" id="journal" aria-labelledby="journal-title">
    <h2 id="journal-title">Requests <span class="muted">(live)</span></h2>
    <label class="inline"><input type="checkbox" id="journal-pause"> Pause</label>
    <div class="scroll"><table><thead><tr><th scope="col">At</th><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Status</th><th scope="col">Code</th><th scope="col">Key</th><th scope="col">Workspace</th><th scope="col">Request id</th></tr></thead>
      <tbody id="journal-rows"></tbody></table></div>
  </section>

  <section class="panel" id="clock" aria-labelledby="clock-title">
    <h2 id="clock-title">Clock</h2>
    <p><output id="clock-now"></output> <span id="clock-frozen" class="muted"></span></p>
    <form id="clock-advance" class="row" novalidate>
      <label>Advance <input name="amount" type="number" min="0" step="1" value="1" size="6" required></label>
      <select name="unit" aria-label="Unit">${options([
        { value: '1000', label: 'seconds' }, { value: '60000', label: 'minutes' }, { value: '3600000', label: 'hours' },
        { value: '86400000', label: 'days' }, { value: '1', label: 'ms' },
      ])}</select>
      <button type="submit">Advance</button>
    </form>
    <form id="clock-set" class="row" novalidate>
      <label>Set to <input name="now" placeholder="2026-01-02T00:00:00.000Z" size="24" required></label>
      <button type="submit">Set</button>
    </form>
    ${problemBox()}
  </section>

  <section class="panel" id="queue" aria-labelledby="queue-title">
    <h2 id="queue-title">Queue</h2>
    <div class="row"><p id="queue-counts"></p><button type="button" id="queue-drain">Drain</button></div>
    ${problemBox()}
    <div class="scroll"><table><thead><tr><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Run at</th><th scope="col">Tries</th><th scope="col">Workspace</th></tr></thead>
      <tbody id="queue-rows"></tbody></table></div>
  </section>

  <section class="panel" id="faults" aria-labelledby="faults-title">
    <h2 id="faults-title">Faults</h2>
    <form id="fault-add" novalidate>
      <div class="row">
        <label>Method <select name="method">${options([{ value: '', label: 'any' }, ...METHODS.map((m) => ({ value: m, label: m }))])}</select></label>
        <label class="grow">Path <input name="path" placeholder="/v1/agents/**" maxlength="2048"></label>
      </div>
      <div class="row">
        <label>Status <input name="status" type="number" min="400" max="599" step="1" size="4"></label>
        <label>Code <select name="code">${options([{ value: '', label: '(the status’s own)' }, ...codes])}</select></label>
        <label>Times <input name="times" type="number" min="1" step="1" size="3" placeholder="∞"></label>
        <button type="submit">Add fault</button>
      </div>
    </form>
    <form id="fault-ingest" class="row" novalidate>
      <label>Next ingestion fails with <select name="ingest">${options(INGEST_CHOICES.map((c) => ({ value: c, label: c })))}</select></label>
      <label>Times <input name="times" type="number" min="1" step="1" value="1" size="3"></label>
      <button type="submit">Queue failure</button>
    </form>
    ${problemBox()}
    <table><thead><tr><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Answer</th><th scope="col">Left</th></tr></thead>
      <tbody id="fault-rows"></tbody></table>
    <button type="button" id="faults-clear">Clear all faults</button>
  </section>

  <section class="panel" id="state" aria-labelledby="state-title">
    <h2 id="state-title">State</h2>
    <div class="row">
      <button type="button" id="state-download">Download snapshot</button>
      <button type="button" id="state-reset" class="danger">Reset to fixtures</button>
    </div>
    <form id="state-upload" class="row" novalidate>
      <label>Snapshot <input name="file" type="file" accept="application/json,.json" required></label>
      <button type="submit">Restore</button>
    </form>
    ${problemBox()}
  </section>
</main>
<dialog id="token-dialog">
  <form id="token-form">
    <h2>Admin token</h2>
    <p>This emulator was started with <code>--admin-token</code>. The page keeps it for this tab only and sends it as <code>Authorization: Bearer</code>.</p>
    <label>Token <input name="token" type="password" autocomplete="off" required></label>
    <p class="problem" id="token-problem" hidden></p>
    <div class="row"><button type="submit">Use token</button></div>
  </form>
</dialog>
</body>
</html>
`;
}
