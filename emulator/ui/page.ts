import { ERROR_CODES } from '../../src/platform/error-codes.js';
import { SCOPES } from '../../src/platform/scopes.js';
import { escapeHtml } from '../sites/markdown.js';
import { UI_PATH, UI_SECTIONS, type UiSection } from './ui-paths.js';

/** Source failures a fault can queue (a few of `INJECTABLE_INGEST_FAILURE`'s; the control plane takes them all). */
export const INGEST_CHOICES = [
  'fetch_timeout',
  'fetch_dns_failed',
  'fetch_response_too_large',
  'unsupported_document',
  'ingest_failed',
  'fetch_blocked_address:private',
  'fetch_blocked_address:loopback',
];

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function options(values: { value: string; label: string }[]): string {
  return values.map(({ value, label }) => `<option value="${escapeHtml(value)}">${escapeHtml(label)}</option>`).join('');
}

/** Where an action's refusal (its problem document) or its outcome is shown. */
function messages(): string {
  return '<div class="problem" role="alert" hidden></div><p class="note" role="status" hidden></p>';
}

/** A table whose body the script fills: `rows` names the body (`data-rows`). */
function table(rows: string, columns: string[], caption?: string): string {
  const head = columns.map((c) => `<th scope="col">${escapeHtml(c)}</th>`).join('');
  const cap = caption ? `<caption class="sr-only">${escapeHtml(caption)}</caption>` : '';
  return `<div class="scroll"><table>${cap}<thead><tr>${head}</tr></thead><tbody data-rows="${rows}"></tbody></table></div>`;
}

function section(id: UiSection, current: UiSection, body: string, scoped = false): string {
  const label = UI_SECTIONS.find((s) => s.id === id)!.label;
  const ws = scoped ? ' <span class="ws-name muted" data-ws-name></span>' : '';
  return `<section id="${id}" class="section" aria-labelledby="${id}-title"${id === current ? '' : ' hidden'}>
  <h2 id="${id}-title" tabindex="-1">${escapeHtml(label)}${ws}</h2>
  ${body}
</section>`;
}

function workspacesSection(): string {
  const scopeBoxes = SCOPES.map((s) => `<label class="check"><input type="checkbox" name="scopes" value="${s}" checked> ${s}</label>`).join('');
  return `<div class="cols wide-right">
    <div class="card" id="workspace-list">
      <h3>Workspaces</h3>
      ${table('workspaces', ['Name', 'Plan', 'Credits left'], 'Workspaces')}
      <form id="workspace-create" novalidate>
        <h3>New workspace</h3>
        <div class="row">
          <label>Name <input name="name" maxlength="80" placeholder="My workspace"></label>
          <label>Plan <input name="plan" maxlength="40" placeholder="free" size="8"></label>
          <label>Credits <input name="credits" inputmode="numeric" placeholder="1000" size="6"></label>
        </div>
        <div class="row">
          <label class="inline"><input type="checkbox" name="withKey" checked> with a key of every scope (its secret is shown once)</label>
          <button type="submit">Create workspace</button>
        </div>
      </form>
      ${messages()}
    </div>
    <div class="card" id="workspace-detail">
      <p class="muted" data-when="no-workspace">Choose a workspace.</p>
      ${messages()}
      <div data-when="workspace" hidden>
        <h3 id="detail-name"></h3>
        <p id="resources-credits"></p>
        <div id="secret-box" class="secret" role="region" aria-labelledby="secret-title" hidden>
          <p id="secret-title"><strong>Copy the new key now:</strong> it is shown this once, never again (not after <em>Done</em>, not after a reload).</p>
          <div class="row">
            <input id="secret-value" class="mono grow" readonly aria-label="Key secret" spellcheck="false" autocomplete="off">
            <button type="button" id="secret-copy">Copy</button>
            <button type="button" id="secret-done" class="secondary">Done</button>
          </div>
          <p class="hint" id="secret-meta"></p>
        </div>
        <h4>Keys <span class="count" data-count="keys"></span></h4>
        ${table('keys', ['Name', 'Prefix', 'Scopes', 'Env', 'Created', 'Status', ''], 'Keys')}
        <form id="key-mint" novalidate>
          <h4>Mint a key</h4>
          <div class="row">
            <label>Name <input name="name" maxlength="80" value="my-app"></label>
            <label>Env <select name="env">${options([
              { value: 'test', label: 'test' },
              { value: 'live', label: 'live' },
            ])}</select></label>
            <label>Expires at <input name="expiresAt" size="24" placeholder="(never)"></label>
          </div>
          <details class="scopes"><summary>Scopes: <span data-scope-count>all ${SCOPES.length}</span></summary>
            <div class="row"><button type="button" class="small secondary" data-scopes="all">All</button><button type="button" class="small secondary" data-scopes="none">None</button></div>
            <div class="checks">${scopeBoxes}</div>
          </details>
          <div class="row"><button type="submit">Mint key</button><span class="hint">A workspace holds at most two active keys.</span></div>
        </form>
        <div class="row end"><button type="button" id="workspace-delete" class="danger">Delete workspace</button></div>
      </div>
    </div>
  </div>`;
}

function knowledgeSection(): string {
  return `<p class="hint">Sources are added through <code>/v1/knowledge/*</code> by an app; the list follows their ingestion (<code>pending</code>, <code>ready</code>, <code>failed</code> with its error). Make the next ingestion fail under <a href="${UI_PATH}/faults" data-nav="faults">Faults</a>.</p>
  <p class="muted" data-when="no-workspace">Choose a workspace.</p>
  <div class="card" data-when="workspace" hidden>
    <h3>Sources <span class="count" data-count="sources"></span></h3>
    ${table('sources', ['Title', 'Kind', 'Status', 'Agent', 'Chunks', 'Updated'], 'Sources')}
  </div>`;
}

function agentsSection(): string {
  return `<p class="muted" data-when="no-workspace">Choose a workspace.</p>
  <div class="cols" data-when="workspace" hidden>
    <div class="card">
      <h3>Agents <span class="count" data-count="agents"></span></h3>
      ${table('agents', ['Name', 'Business', 'Answers on', ''], 'Agents')}
    </div>
    <div class="card" id="chat">
      <h3>Chat</h3>
      <form id="chat-form" novalidate>
        <div class="row">
          <label class="grow">Agent <select name="agent" id="chat-agent"></select></label>
          <label class="grow">Key <select name="key" id="chat-key"></select></label>
        </div>
        <div class="row">
          <button type="button" id="chat-mint" class="small secondary">Mint a chat key</button>
          <button type="button" id="chat-paste-open" class="small secondary">Use a key I have…</button>
        </div>
        ${messages()}
        <ol id="chat-log" class="chat-log" aria-live="polite"></ol>
        <label class="block">Message <textarea name="message" rows="2" maxlength="4000"></textarea></label>
        <div class="row"><button type="submit">Send</button><button type="button" id="chat-new" class="secondary">New conversation</button></div>
      </form>
      <form id="chat-paste" class="row" novalidate hidden>
        <label class="grow">Key of this workspace <input name="secret" type="password" autocomplete="off" spellcheck="false" placeholder="svc_test_…"></label>
        <button type="submit">Use this key</button>
        <button type="button" id="chat-paste-cancel" class="secondary">Cancel</button>
      </form>
      <p class="hint">Sent as <code>POST /v1/agents/{id}/chat</code> with the chosen key: each turn spends a credit, shows under <a href="${UI_PATH}/requests" data-nav="requests">Requests</a>, and faults on <code>/v1/agents/**</code> apply. Keys you mint or paste here stay in this tab only.</p>
    </div>
  </div>`;
}

function sitesSection(): string {
  return `<p class="muted" data-when="no-workspace">Choose a workspace.</p>
  <div data-when="workspace" hidden>
    <div class="card">
      <h3>Sites <span class="count" data-count="projects"></span></h3>
      ${table('projects', ['Name', 'Address', 'Languages', 'Status', 'Id'], 'Sites')}
    </div>
    <div class="card">
      <h3>Pages <span class="count" data-count="pages"></span></h3>
      ${table('pages', ['Path', 'Title (browser tab)', 'Heading', 'Status', 'Site', 'Agent'], 'Pages')}
    </div>
    <div class="card">
      <h3>Assets <span class="count" data-count="assets"></span></h3>
      ${table('assets', ['', 'Asset', 'Kind', 'Type', 'Size', 'Key', 'File'], 'Assets')}
    </div>
  </div>`;
}

function requestsSection(): string {
  return `<div class="row">
    <label class="inline"><input type="checkbox" id="journal-pause"> Pause</label>
    <label class="inline"><input type="checkbox" id="journal-refused"> Only refusals</label>
    <label class="inline">Path contains <input id="journal-filter" size="20" placeholder="/v1/agents"></label>
    <span class="hint">The last 1,000 calls to <code>/v1</code> and the console routes, newest first, live.</span>
  </div>
  <div class="card">${table('journal', ['At', 'Method', 'Path', 'Status', 'Code', 'Key', 'Workspace', 'Request id'], 'Requests')}</div>`;
}

function queueSection(): string {
  return `${messages()}
  <div class="row"><p id="queue-counts"></p><button type="button" id="queue-drain">Drain</button>
    <span class="hint">Drain runs every job that is due now; scheduled jobs wait for the <a href="${UI_PATH}/clock" data-nav="clock">clock</a>.</span></div>
  <div class="card">${table('queue', ['Kind', 'Status', 'Run at', 'Tries', 'Workspace', 'Last error'], 'Jobs')}</div>`;
}

function faultsSection(): string {
  const codes = Object.entries(ERROR_CODES).map(([code, spec]) => ({ value: code, label: `${spec.status} ${code}` }));
  return `${messages()}
  <div class="cols">
    <div class="card">
      <form id="fault-add" novalidate>
        <h3>Fail matching requests</h3>
        <div class="row">
          <label>Method <select name="method">${options([{ value: '', label: 'any' }, ...METHODS.map((m) => ({ value: m, label: m }))])}</select></label>
          <label class="grow">Path <input name="path" placeholder="/v1/agents/**" maxlength="2048"></label>
        </div>
        <div class="row">
          <label>Status <input name="status" inputmode="numeric" size="4"></label>
          <label class="grow">Code <select name="code">${options([{ value: '', label: '(the status’s own)' }, ...codes])}</select></label>
          <label>Times <input name="times" inputmode="numeric" size="3" placeholder="∞"></label>
        </div>
        <div class="row"><button type="submit">Add fault</button><span class="hint"><code>*</code> matches one path segment, <code>**</code> any.</span></div>
      </form>
    </div>
    <div class="card">
      <form id="fault-ingest" novalidate>
        <h3>Fail the next ingestions</h3>
        <div class="row">
          <label class="grow">Error <select name="ingest">${options(INGEST_CHOICES.map((c) => ({ value: c, label: c })))}</select></label>
          <label>Times <input name="times" inputmode="numeric" value="1" size="3"></label>
        </div>
        <div class="row"><button type="submit">Queue failure</button></div>
      </form>
    </div>
  </div>
  <div class="card">
    <h3>Active faults</h3>
    ${table('faults', ['Method', 'Path', 'Answer', 'Left', ''], 'Faults')}
    <div class="row"><button type="button" id="faults-clear" class="secondary">Clear all faults</button></div>
  </div>`;
}

function clockSection(): string {
  return `${messages()}
  <div class="card narrow">
    <p class="big"><output id="clock-now"></output> <span id="clock-frozen" class="muted"></span></p>
    <div class="row">
      <button type="button" class="secondary" data-advance="3600000">+1 hour</button>
      <button type="button" class="secondary" data-advance="86400000">+1 day</button>
      <button type="button" class="secondary" data-advance="604800000">+1 week</button>
    </div>
    <form id="clock-advance" class="row" novalidate>
      <label>Advance by <input name="amount" data-field="advanceMs" inputmode="numeric" value="1" size="6"></label>
      <label>Unit <select name="unit">${options([
        { value: '1000', label: 'seconds' },
        { value: '60000', label: 'minutes' },
        { value: '3600000', label: 'hours' },
        { value: '86400000', label: 'days' },
        { value: '1', label: 'ms' },
      ])}</select></label>
      <button type="submit">Advance</button>
    </form>
    <form id="clock-set" class="row" novalidate>
      <label>Set to <input name="now" size="26"></label>
      <button type="submit">Set</button>
      <span class="hint">An RFC 3339 time after the current one: time only moves forward.</span>
    </form>
    <p class="hint">Moving the clock runs what came due (re-crawls, expiries) before it answers.</p>
  </div>`;
}

function stateSection(): string {
  return `${messages()}
  <div class="cols">
    <div class="card">
      <h3>Snapshot</h3>
      <p class="hint">The whole state as one JSON file (key hashes sealed, never a secret).</p>
      <div class="row"><button type="button" id="state-download">Download snapshot</button></div>
      <form id="state-upload" class="row" novalidate>
        <label class="grow">Snapshot file <input name="file" type="file" accept="application/json,.json"></label>
        <button type="submit">Restore</button>
      </form>
    </div>
    <div class="card">
      <h3>Reset</h3>
      <p class="hint">Back to the loaded fixtures (or the state the emulator started from); the journal and faults are cleared.</p>
      <div class="row"><button type="button" id="state-reset" class="danger">Reset to fixtures</button></div>
    </div>
  </div>`;
}

const BODIES: Record<UiSection, [body: () => string, scoped: boolean]> = {
  workspaces: [workspacesSection, false],
  knowledge: [knowledgeSection, true],
  agents: [agentsSection, true],
  sites: [sitesSection, true],
  requests: [requestsSection, false],
  queue: [queueSection, false],
  faults: [faultsSection, false],
  clock: [clockSection, false],
  state: [stateSection, false],
};

/**
 * The UI's one page, shown at `UI_PATH/<section>` with that section open (D-850):
 * every section's frame and forms are rendered here; the data comes from the control
 * plane through the page's script (`ui.js`), which sends the admin token when one is
 * needed. Nothing inline: the CSP allows only the files under the UI path.
 */
export function renderUiPage(version: string, current: UiSection = 'workspaces', siteDomain = 'localhost'): string {
  const nav = UI_SECTIONS.map(
    (s) => `<li><a href="${UI_PATH}/${s.id}" data-nav="${s.id}"${s.id === current ? ' aria-current="page"' : ''}>${escapeHtml(s.label)}</a></li>`,
  ).join('');
  const sections = UI_SECTIONS.map((s) => section(s.id, current, BODIES[s.id][0](), BODIES[s.id][1])).join('\n');
  const label = UI_SECTIONS.find((s) => s.id === current)!.label;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(label)} · svc-emulator</title>
<link rel="icon" href="${UI_PATH}/favicon.svg" type="image/svg+xml">
<meta name="svc-site-domain" content="${escapeHtml(siteDomain)}">
<link rel="stylesheet" href="${UI_PATH}/ui.css">
<script type="module" src="${UI_PATH}/ui.js"></script>
</head>
<body>
<a class="skip" href="#main">Skip to the section</a>
<header class="top">
  <h1><a href="${UI_PATH}" data-nav="workspaces">svc-emulator</a> <span class="version">${escapeHtml(version)}</span></h1>
  <label class="picker">Workspace <select id="workspace-picker"><option value="">(none)</option></select></label>
  <p class="clock-badge" title="Emulated clock (UTC)"><a href="${UI_PATH}/clock" data-nav="clock" id="clock-badge">…</a></p>
  <p id="connection" role="status"></p>
  <button type="button" id="token-button" class="secondary" hidden>Admin token</button>
</header>
<div class="layout">
<nav class="side" aria-label="Sections"><ul>${nav}</ul>
  <p class="side-links"><a href="/">Home</a> · <a href="/v1/openapi.json">OpenAPI</a> · <a href="/docs/errors">Errors</a></p>
</nav>
<main id="main">
<p id="workspace-lost" class="note warn" role="status" hidden></p>
${sections}
</main>
</div>
<dialog id="token-dialog">
  <form id="token-form">
    <h2>Admin token</h2>
    <p>This emulator was started with <code>--admin-token</code>. The page keeps it for this tab only and sends it as <code>Authorization: Bearer</code>.</p>
    <label class="block">Token <input name="token" type="password" autocomplete="off" required></label>
    <p class="problem" id="token-problem" hidden></p>
    <div class="row"><button type="submit">Use token</button></div>
  </form>
</dialog>
</body>
</html>
`;
}
