// The emulator UI: a section per address (router.js), filled from the control plane.
// It polls once a second while the tab is visible: the clock and the workspaces always,
// and what the open section shows (the chosen workspace's records, the journal, the
// queue, the faults). A section re-renders only when its data changed, so forms keep
// their input and focus.
import { afterActions } from './act.js';
import { api, changeToken, holdsToken } from './api.js';
import { chooseAgent, setAgents, setFixtureKeys, setKeys } from './chat.js';
import { clearMessages } from './dom.js';
import { renderClock, renderQueue } from './clock.js';
import { renderFaults } from './faults.js';
import { syncHeldKeys } from './held-keys.js';
import { journalPaused, renderJournal } from './journal.js';
import { hideSecret, isActive, renderKeys } from './keys.js';
import { agentsBySite, loadSiteAddress, renderResources, resetResourcesLimit, resignFileLinks, resourcesLimit } from './resources.js';
import { chooseWorkspace, onRoute, route } from './router.js';
import './state.js';
import { deleting, renderDetail, renderWorkspaces, showScoped } from './workspaces.js';

const POLL_MS = 1000;
const SCOPED = new Set(['workspaces', 'knowledge', 'agents', 'sites']);
const shown = new Map();
let names = new Map();
let clockNow = '';

/** Whether `data` differs from what `key` last showed (then remembers it). */
function changed(key, data) {
  const text = JSON.stringify(data);
  if (shown.get(key) === text) return false;
  shown.set(key, text);
  return true;
}

/**
 * What a workspace's records show, to tell whether they changed (D-1181): a file's URL
 * is signed again on every answer (a new `expires`), which is no change to draw (a
 * redraw every second lost a half-confirmed Revoke and the focus); a key's status
 * moves with the clock.
 */
function resourcesShown(res) {
  const unsigned = JSON.stringify(res, (key, value) => {
    if (key === 'urlExpiresAt') return undefined;
    return key === 'url' && typeof value === 'string' ? value.replace(/\?expires=.*$/, '') : value;
  });
  return [unsigned, res.keys.data.map((k) => isActive(k, clockNow))];
}

function showWorkspace(res) {
  showScoped(true);
  renderDetail(res);
  renderResources(res);
  renderKeys(res.keys, clockNow);
  syncHeldKeys(
    res.workspace.id,
    res.keys.data.filter((k) => isActive(k, clockNow)),
  );
  setAgents(res.workspace.id, agentsBySite(res));
  setKeys();
}

/**
 * The workspace the address names does not exist (a link to a workspace this emulator
 * never had, or one deleted elsewhere): say so, forget the keys this tab held for it,
 * and show the first workspace instead (D-1184).
 */
function lost(id, list) {
  syncHeldKeys(id, undefined);
  const first = list?.find((ws) => ws.id !== id);
  // Deleted by this page (a poll that read the list just after): its card already says so.
  if (!deleting.has(id)) {
    const instead = !list ? '' : first ? ` Showing ${first.name} (${first.id}) instead.` : ' There are no workspaces left.';
    const note = document.getElementById('workspace-lost');
    note.textContent = `Workspace ${id} was not found: it was deleted, or this emulator never had it.${instead}`;
    note.hidden = false;
  }
  chooseWorkspace(first?.id, { replace: true });
}

async function poll() {
  const { section, workspace } = route;
  const scoped = SCOPED.has(section) && workspace;
  const [clock, workspaces, resources, journal, queue, faults, fixtureKeys] = await Promise.allSettled([
    api('GET', '/_emulator/clock'),
    api('GET', '/_emulator/workspaces'),
    scoped ? api('GET', `/_emulator/workspaces/${encodeURIComponent(workspace)}/resources?limit=${resourcesLimit()}`) : undefined,
    section === 'requests' && !journalPaused() ? api('GET', '/_emulator/requests?limit=1000') : undefined,
    section === 'queue' ? api('GET', '/_emulator/queue?limit=200') : undefined,
    section === 'faults' ? api('GET', '/_emulator/faults') : undefined,
    section === 'agents' ? api('GET', '/_emulator/fixture-keys') : undefined,
  ]);
  if (clock.value) {
    clockNow = clock.value.now;
    if (changed('clock', clock.value)) renderClock(clock.value);
  }
  if (workspaces.value) {
    const list = workspaces.value.data;
    names = new Map(list.map((ws) => [ws.id, ws.name]));
    // The workspace named is not in the list read after it was chosen (a poll that began
    // before the choice answers for the old one): a wrong link, or deleted elsewhere.
    const gone =
      workspace && workspace === route.workspace && (!list.some((ws) => ws.id === workspace) || resources.reason?.problem?.code === 'svc.tenant.not_found');
    if (gone) lost(workspace, list);
    // No workspace chosen: the first (the fixtures' demo, when loaded).
    else if (!route.workspace && list.length) chooseWorkspace(list[0].id, { replace: true });
    if (changed('workspaces', [route.workspace, list])) renderWorkspaces(list);
  }
  // A poll that began before the workspace changed answers for the old one: skip it.
  if (workspace === route.workspace) {
    if (resources.status === 'rejected' && resources.reason?.problem?.code === 'svc.tenant.not_found') lost(workspace, workspaces.value?.data);
    else if (resources.value && changed('resources', resourcesShown(resources.value))) showWorkspace(resources.value);
    else if (resources.value) resignFileLinks(resources.value.assets);
    else if (!workspace && changed('resources', null)) {
      showScoped(false);
      setAgents(undefined, []);
    }
  }
  if (fixtureKeys.value && changed('fixture-keys', fixtureKeys.value.data)) setFixtureKeys(fixtureKeys.value.data);
  if (journal.value && changed('journal', [journal.value.data, [...names]])) renderJournal(journal.value.data, names);
  if (queue.value && changed('queue', [queue.value, clockNow.slice(0, 16), [...names]])) renderQueue(queue.value, names);
  if (faults.value && changed('faults', faults.value.data)) renderFaults(faults.value.data);
  const failed = [clock, workspaces].find((r) => r.status === 'rejected');
  const connection = document.getElementById('connection');
  connection.textContent = failed ? `Not connected: ${failed.reason?.message ?? failed.reason}` : 'Live';
  connection.dataset.state = failed ? 'down' : 'live';
}

let running;

/** One poll at a time; an action's refresh waits for the poll under way and runs after it. */
function refresh() {
  // A render that throws is a bug of this page: say so in the console (the browser test watches it).
  running = (running ?? Promise.resolve()).then(poll, poll).catch((error) => console.error('svc-emulator UI:', error));
  return running;
}

onRoute((moved) => {
  hideSecret(route.workspace);
  // The note on a workspace not found stays until the user moves (D-856).
  if (!moved.byUi) document.getElementById('workspace-lost').hidden = true;
  if (moved.workspace) {
    // What was said about another workspace no longer applies once the user picks one;
    // a choice the UI makes itself (after a delete, on first load) keeps the note.
    if (!moved.byUi) {
      clearMessages(document.getElementById('workspace-detail'));
      clearMessages(document.getElementById('chat'));
    }
    shown.delete('resources');
    shown.delete('workspaces');
    resetResourcesLimit();
    if (!route.workspace) showScoped(false);
    setKeys();
  }
  void refresh();
});

// "Show more" under a list: the same records, a hundred more of each kind.
document.addEventListener('svc:resources-more', () => void refresh());

document.querySelector('[data-rows="agents"]').addEventListener('click', (event) => {
  const agentId = event.target.closest('button[data-chat]')?.dataset.chat;
  if (agentId) chooseAgent(agentId);
});

document.getElementById('token-button').addEventListener('click', () => {
  void changeToken().then(refresh);
});

afterActions(refresh);

async function loop() {
  if (document.visibilityState === 'visible') await refresh();
  setTimeout(loop, POLL_MS);
}

// A tab that holds a token (given before a reload) can change it: the header's button shows (D-1185).
if (holdsToken()) document.getElementById('token-button').hidden = false;
showScoped(Boolean(route.workspace));
loadSiteAddress();
void loop();
