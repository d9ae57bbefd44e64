// The emulator UI: fills the server-rendered panels from the control plane, polls it
// once a second (journal, clock, queue, faults, workspaces, the selected workspace's
// resources), and sends the panels' actions. Every refused action shows the problem
// document the emulator answered.
import { ProblemError, api, changeToken, send } from './api.js';
import { chooseAgent, setAgents } from './chat.js';
import { bytes, clearMessages, confirmButton, fillRows, h, shortTime, showNote, showProblem } from './dom.js';

const POLL_MS = 1000;
const $ = (id) => document.getElementById(id);
const panels = { workspaces: $('workspaces'), resources: $('resources'), clock: $('clock'), queue: $('queue'), faults: $('faults'), state: $('state') };

let selected;
try {
  selected = decodeURIComponent(location.hash.slice(1)) || undefined;
} catch {
  selected = undefined;
}
const shown = new Map();

/** Runs `render(data)` only when `data` differs from what `key` last showed (forms and focus stay put). */
function changed(key, data) {
  const text = JSON.stringify(data);
  if (shown.get(key) === text) return false;
  shown.set(key, text);
  return true;
}

/** Runs a panel's action: its problem document on refusal, else the note it returns; then refreshes. */
async function act(panel, action) {
  clearMessages(panel);
  try {
    const note = await action();
    if (note) showNote(panel, note);
  } catch (error) {
    showProblem(panel, error instanceof ProblemError ? error.problem : { title: 'The action failed', detail: String(error) });
  }
  await refresh();
}

/** A form's number field: undefined when empty, else a whole number or a field error. */
function wholeNumber(form, name, errors) {
  const raw = form.elements[name].value.trim();
  if (raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n)) errors.push({ field: name, reason: 'must be a whole number' });
  return n;
}

function checked(errors) {
  if (errors.length) throw new ProblemError({ title: 'Check the form', detail: 'Nothing was sent.', errors });
}

// Workspaces --------------------------------------------------------------------

function select(workspaceId) {
  selected = workspaceId;
  history.replaceState(null, '', workspaceId ? `#${encodeURIComponent(workspaceId)}` : location.pathname);
  shown.delete('resources');
  shown.delete('workspaces');
  void refresh();
}

function renderWorkspaces(list) {
  fillRows($('workspace-rows'), list.map((ws) => h('tr', { class: ws.id === selected ? 'selected' : undefined, 'aria-current': ws.id === selected ? 'true' : undefined },
    h('td', {}, h('button', { type: 'button', class: 'link', 'data-workspace': ws.id }, ws.name)),
    h('td', {}, h('code', {}, ws.id)), h('td', {}, ws.plan), h('td', { class: 'num' }, ws.credits),
  )), 4, 'No workspaces.');
}

$('workspace-rows').addEventListener('click', (event) => {
  const id = event.target.closest('button[data-workspace]')?.dataset.workspace;
  if (id) select(id);
});

$('workspace-create').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.target;
  void act(panels.workspaces, async () => {
    const errors = [];
    const body = {};
    if (form.elements.name.value.trim()) body.name = form.elements.name.value.trim();
    if (form.elements.plan.value.trim()) body.plan = form.elements.plan.value.trim();
    const credits = wholeNumber(form, 'credits', errors);
    if (credits !== undefined) body.credits = credits;
    checked(errors);
    const ws = await api('POST', '/_emulator/workspaces/keyless', body);
    form.reset();
    select(ws.id);
    return `Created ${ws.name} (${ws.id}).`;
  });
});

// Resources of the selected workspace ----------------------------------------------

const status = (value, title) => h('span', { class: `badge ${value}`, 'data-status': value, title }, value);

const ROWS = {
  sources: (s, names) => h('tr', { 'data-id': s.id },
    h('td', {}, s.title), h('td', {}, s.kind), h('td', {}, status(s.status, s.error), s.error ? h('small', {}, ` ${s.error}`) : null),
    h('td', { title: s.agentId ?? 'the workspace pool' }, s.agentId ? names.get(s.agentId) ?? s.agentId : 'pool'), h('td', { class: 'num' }, s.chunkCount), h('td', {}, shortTime(s.updatedAt))),
  agents: (a) => h('tr', { 'data-id': a.id },
    h('td', {}, a.name), h('td', {}, a.identity.businessName), h('td', {}, h('code', {}, a.id)),
    h('td', {}, h('button', { type: 'button', 'data-chat': a.id }, 'Chat'))),
  projects: (p) => h('tr', { 'data-id': p.id },
    h('td', {}, p.name), h('td', {}, h('code', {}, p.slug)), h('td', {}, p.locales.join(' ')), h('td', {}, h('code', {}, p.id))),
  pages: (p, names) => h('tr', { 'data-id': p.id },
    h('td', {}, h('code', {}, p.path)), h('td', {}, p.editorial.title[p.defaultLocale] || p.name), h('td', {}, status(p.status)), h('td', {}, names.get(p.projectId) ?? p.projectId)),
  assets: (a) => h('tr', { 'data-id': a.id },
    h('td', {}, a.kind === 'image' ? h('img', { src: a.url, alt: a.alt ?? '', class: 'thumb', loading: 'lazy' }) : '▶'),
    h('td', {}, a.kind), h('td', {}, a.contentType), h('td', { class: 'num' }, bytes(a.byteSize)), h('td', {}, a.key ?? '')),
  keys: (k) => h('tr', { 'data-id': k.id },
    h('td', {}, k.name), h('td', {}, h('code', {}, `${k.prefix}…`)), h('td', { title: k.scopes.join(' ') }, `${k.scopes.length} scopes`), h('td', {}, k.env),
    h('td', {}, k.revokedAt ? shortTime(k.revokedAt) : '')),
};

function renderResources(res) {
  $('resources-name').textContent = `${res.workspace.name} (${res.workspace.id})`;
  $('resources-name').classList.remove('muted');
  $('resources-credits').textContent = `Credits: ${res.credits.remaining} of ${res.credits.limit} left · plan ${res.workspace.plan}`;
  $('resources-bar').hidden = false;
  $('resources-body').hidden = false;
  const names = new Map([...res.projects.data, ...res.agents.data].map((r) => [r.id, r.name]));
  for (const [kind, row] of Object.entries(ROWS)) {
    const list = res[kind];
    const tbody = panels.resources.querySelector(`[data-rows="${kind}"]`);
    fillRows(tbody, list.data.map((item) => row(item, names)), tbody.closest('table').tHead.rows[0].cells.length, 'None.');
    panels.resources.querySelector(`[data-count="${kind}"]`).textContent = `(${list.data.length}${list.hasMore ? '+' : ''})`;
  }
  setAgents(res.workspace.id, res.agents.data);
}

function clearResources() {
  $('resources-name').textContent = '(select a workspace)';
  $('resources-name').classList.add('muted');
  $('resources-bar').hidden = true;
  $('resources-body').hidden = true;
  setAgents(undefined, []);
}

panels.resources.addEventListener('click', (event) => {
  const agentId = event.target.closest('button[data-chat]')?.dataset.chat;
  if (agentId) chooseAgent(agentId);
});

confirmButton($('workspace-delete'), () => act(panels.resources, async () => {
  const id = selected;
  await api('DELETE', `/_emulator/workspaces/${encodeURIComponent(id)}`);
  select(undefined);
  return `Deleted ${id} and everything in it.`;
}));

// Journal, clock, queue, faults ----------------------------------------------------

function renderJournal(entries) {
  fillRows($('journal-rows'), entries.map((e) => h('tr', { class: e.status >= 400 ? 'refused' : undefined, 'data-request': e.requestId },
    h('td', {}, shortTime(e.at)), h('td', {}, e.method), h('td', {}, h('code', {}, e.path)), h('td', { class: 'num' }, e.status),
    h('td', {}, e.code ? h('code', {}, e.code) : ''), h('td', {}, e.keyPrefix ? h('code', {}, `${e.keyPrefix}…`) : ''),
    h('td', {}, e.workspaceId ? h('code', {}, e.workspaceId) : ''), h('td', {}, h('code', {}, e.requestId)),
  )), 8, 'No requests yet: calls to /v1 appear here as they are answered.');
}

function renderClock(clock) {
  $('clock-badge').textContent = `${shortTime(clock.now)} UTC${clock.frozen ? ' (frozen)' : ''}`;
  $('clock-now').textContent = clock.now;
  $('clock-frozen').textContent = clock.frozen ? 'frozen: moves only when told' : 'running';
}

function renderQueue(queue) {
  const { queued, running, failed } = queue.counts;
  $('queue-counts').textContent = `${queued} queued · ${running} running · ${failed} failed`;
  fillRows($('queue-rows'), queue.data.map((job) => h('tr', { 'data-id': job.id },
    h('td', {}, job.kind), h('td', {}, status(job.status, job.lastError ?? undefined), job.status === 'queued' && !job.due ? h('small', {}, ' scheduled') : null),
    h('td', {}, shortTime(job.runAt)), h('td', { class: 'num' }, job.attempts), h('td', {}, h('code', {}, job.workspaceId)),
  )), 5, 'The queue is empty.');
}

function renderFaults(faults) {
  fillRows($('fault-rows'), faults.map((f) => h('tr', { 'data-id': f.id },
    h('td', {}, f.match.method ?? 'any'), h('td', {}, h('code', {}, f.match.path ?? '(any path)')),
    h('td', {}, `${f.status} `, h('code', {}, f.code)), h('td', { class: 'num' }, f.remaining ?? '∞'),
  )), 4, 'No faults.');
}

$('clock-advance').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.target;
  void act(panels.clock, async () => {
    const errors = [];
    const amount = wholeNumber(form, 'amount', errors);
    if (amount === undefined) errors.push({ field: 'amount', reason: 'required' });
    checked(errors);
    const clock = await api('POST', '/_emulator/clock', { advanceMs: amount * Number(form.elements.unit.value) });
    return `Now ${clock.now}; what came due has run.`;
  });
});

$('clock-set').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.target;
  void act(panels.clock, async () => {
    const now = form.elements.now.value.trim();
    checked(now ? [] : [{ field: 'now', reason: 'required: an RFC 3339 date-time such as 2026-01-02T00:00:00.000Z' }]);
    const clock = await api('POST', '/_emulator/clock', { now });
    return `Now ${clock.now}; what came due has run.`;
  });
});

$('queue-drain').addEventListener('click', () => act(panels.queue, async () => {
  const { ran } = await api('POST', '/_emulator/queue/drain');
  return `Drained: ${ran} job${ran === 1 ? '' : 's'} ran.`;
}));

$('fault-add').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.target;
  void act(panels.faults, async () => {
    const errors = [];
    const match = {};
    if (form.elements.method.value) match.method = form.elements.method.value;
    if (form.elements.path.value.trim()) match.path = form.elements.path.value.trim();
    const body = { match };
    const statusCode = wholeNumber(form, 'status', errors);
    if (statusCode !== undefined) body.status = statusCode;
    if (form.elements.code.value) body.code = form.elements.code.value;
    const times = wholeNumber(form, 'times', errors);
    if (times !== undefined) body.times = times;
    checked(errors);
    const fault = await api('POST', '/_emulator/faults', body);
    return `Added: ${fault.match.method ?? 'any method'} ${fault.match.path ?? 'any path'} answers ${fault.status} ${fault.code}.`;
  });
});

$('fault-ingest').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.target;
  void act(panels.faults, async () => {
    const errors = [];
    const times = wholeNumber(form, 'times', errors);
    checked(errors);
    const queued = await api('POST', '/_emulator/faults', { ingest: form.elements.ingest.value, ...(times !== undefined && { times }) });
    return `The next ${queued.times} ingestion${queued.times === 1 ? '' : 's'} will fail with ${queued.ingest}.`;
  });
});

$('faults-clear').addEventListener('click', () => act(panels.faults, async () => {
  const { cleared } = await api('DELETE', '/_emulator/faults');
  return `Cleared ${cleared} fault${cleared === 1 ? '' : 's'} and any queued ingestion failures.`;
}));

// State -------------------------------------------------------------------------

$('state-download').addEventListener('click', () => act(panels.state, async () => {
  const res = await send('GET', '/_emulator/state');
  const blob = await res.blob();
  const url = URL.createObjectURL(blob);
  const at = shown.has('clock') ? JSON.parse(shown.get('clock')).now.replace(/[:.]/g, '-') : 'now';
  const link = h('a', { href: url, download: `svc-emulator-state-${at}.json` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return `Downloaded the snapshot (${bytes(blob.size)}).`;
}));

confirmButton($('state-reset'), () => act(panels.state, async () => {
  await api('POST', '/_emulator/reset');
  return 'Reset: back to the loaded fixtures; journal and faults cleared.';
}));

$('state-upload').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.target;
  void act(panels.state, async () => {
    const file = form.elements.file.files[0];
    checked(file ? [] : [{ field: 'file', reason: 'choose a snapshot file (.json) first' }]);
    await send('PUT', '/_emulator/state', { body: await file.text() });
    form.reset();
    return `Restored ${file.name}.`;
  });
});

$('token-button').addEventListener('click', () => { void changeToken().then(refresh); });

// Polling -------------------------------------------------------------------------

let running;

async function poll() {
  const paused = $('journal-pause').checked;
  const [clock, journal, queue, faults, workspaces, resources] = await Promise.allSettled([
    api('GET', '/_emulator/clock'),
    paused ? undefined : api('GET', '/_emulator/requests?limit=100'),
    api('GET', '/_emulator/queue?limit=100'),
    api('GET', '/_emulator/faults'),
    api('GET', '/_emulator/workspaces'),
    selected ? api('GET', `/_emulator/workspaces/${encodeURIComponent(selected)}/resources`) : undefined,
  ]);
  if (clock.value && changed('clock', clock.value)) renderClock(clock.value);
  if (journal.value && changed('journal', journal.value.data)) renderJournal(journal.value.data);
  if (queue.value && changed('queue', queue.value)) renderQueue(queue.value);
  if (faults.value && changed('faults', faults.value.data)) renderFaults(faults.value.data);
  if (workspaces.value && changed('workspaces', [selected, workspaces.value.data])) renderWorkspaces(workspaces.value.data);
  if (resources.status === 'rejected' && resources.reason?.problem?.code === 'svc.tenant.not_found') select(undefined);
  else if (resources.value && changed('resources', resources.value)) renderResources(resources.value);
  else if (!selected && changed('resources', null)) clearResources();
  const failed = [clock, queue, faults, workspaces].find((r) => r.status === 'rejected');
  $('connection').textContent = failed ? `Not connected: ${failed.reason?.message ?? failed.reason}` : 'Live';
  $('connection').dataset.state = failed ? 'down' : 'live';
}

/** One poll at a time; an action's refresh waits for the poll under way and runs after it. */
function refresh() {
  // A render that throws is a bug of this page: say so in the console (the browser test watches it).
  running = (running ?? Promise.resolve()).then(poll, poll).catch((error) => console.error('svc-emulator UI:', error));
  return running;
}

async function loop() {
  if (document.visibilityState === 'visible') await refresh();
  setTimeout(loop, POLL_MS);
}

void loop();
