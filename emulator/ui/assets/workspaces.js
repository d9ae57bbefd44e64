// Workspaces: the list (with the credits each has left, as its detail says: D-854),
// the header's picker, a new workspace (with a key, its secret shown once: D-851, or
// without), and the chosen one's detail: credits, keys, delete.
import { act, checked, wholeNumber } from './act.js';
import { api } from './api.js';
import { confirmButton, fillRows, h } from './dom.js';
import { holdKey, syncHeldKeys } from './held-keys.js';
import { revealSecret } from './keys.js';
import { chooseWorkspace, route } from './router.js';

const panel = document.getElementById('workspace-list');
const detail = document.getElementById('workspace-detail');
const picker = document.getElementById('workspace-picker');
const createForm = document.getElementById('workspace-create');
// What the detail card last showed: the list, polled in every section, can be newer
// than the card (read only while a workspace section is open), and the two must agree.
let detailShown;

/** `993 of 1000 left`: the same words wherever credits show. */
export function creditsLeft(messages) {
  return `${messages.remaining} of ${messages.limit} left`;
}

/** The list and the picker (`list` as `GET /_emulator/workspaces` answers it). */
export function renderWorkspaces(list) {
  const selected = route.workspace;
  fillRows(
    panel.querySelector('[data-rows="workspaces"]'),
    list.map((ws) =>
      h(
        'tr',
        { 'data-id': ws.id, class: ws.id === selected ? 'selected' : undefined, 'aria-current': ws.id === selected ? 'true' : undefined },
        h('td', {}, h('button', { type: 'button', class: 'link', 'data-workspace': ws.id }, ws.name), h('br'), h('code', { class: 'muted' }, ws.id)),
        h('td', {}, ws.plan),
        h('td', { class: ws.messages.remaining === 0 ? 'bad nowrap' : 'nowrap' }, creditsLeft(ws.messages)),
      ),
    ),
    3,
    'No workspaces: create one.',
  );
  picker.replaceChildren(
    h('option', { value: '' }, list.length ? '(choose a workspace)' : '(no workspaces)'),
    ...list.map((ws) => h('option', { value: ws.id }, ws.name)),
  );
  picker.value = list.some((ws) => ws.id === selected) ? selected : '';
  const ws = list.find((w) => w.id === selected);
  for (const el of document.querySelectorAll('[data-ws-name]')) el.textContent = ws ? `· ${ws.name}` : '';
  if (ws && detailShown?.workspace.id === ws.id && creditsLeft(ws.messages) !== creditsLeft(detailShown.credits)) {
    renderDetail({ ...detailShown, credits: ws.messages });
  }
}

/** The chosen workspace's heading, credits and settings in the detail card. */
export function renderDetail(res) {
  detailShown = res;
  document.getElementById('detail-name').textContent = `${res.workspace.name} (${res.workspace.id})`;
  document.getElementById('resources-credits').textContent =
    `Credits: ${creditsLeft(res.credits)} · plan ${res.workspace.plan} · ${res.workspace.rateLimit.limit} requests per ${res.workspace.rateLimit.windowSeconds} s per key`;
}

/** Shows the parts that need a workspace, or the "choose one" line. */
export function showScoped(hasWorkspace) {
  for (const el of document.querySelectorAll('[data-when="workspace"]')) el.hidden = !hasWorkspace;
  for (const el of document.querySelectorAll('[data-when="no-workspace"]')) el.hidden = hasWorkspace;
}

panel.querySelector('[data-rows="workspaces"]').addEventListener('click', (event) => {
  const id = event.target.closest('button[data-workspace]')?.dataset.workspace;
  if (id) chooseWorkspace(id);
});

picker.addEventListener('change', () => chooseWorkspace(picker.value));

createForm.addEventListener('submit', (event) => {
  event.preventDefault();
  void act(
    panel,
    async () => {
      const errors = [];
      const body = {};
      const name = createForm.elements.name.value.trim();
      const plan = createForm.elements.plan.value.trim();
      if (name) body.name = name;
      if (plan) body.plan = plan;
      const credits = wholeNumber(createForm, 'credits', errors);
      if (credits !== undefined) body.credits = credits;
      checked(errors);
      if (!createForm.elements.withKey.checked) {
        const ws = await api('POST', '/_emulator/workspaces/keyless', body);
        createForm.reset();
        chooseWorkspace(ws.id);
        return `Created ${ws.name} (${ws.id}) without a key: mint one under Keys.`;
      }
      const made = await api('POST', '/_emulator/workspaces', body);
      createForm.reset();
      chooseWorkspace(made.workspaceId);
      const key = { ...made.apiKey, name: 'default' };
      revealSecret(made.workspaceId, key, holdKey(made.workspaceId, { ...key, how: 'minted' }));
      return `Created workspace ${made.workspaceId} with key ${made.apiKey.prefix}….`;
    },
    createForm,
  );
});

/** Workspaces this page is deleting: a poll that no longer finds one says nothing of it. */
export const deleting = new Set();

confirmButton(document.getElementById('workspace-delete'), () => {
  const id = route.workspace;
  return act(detail, async () => {
    deleting.add(id);
    try {
      await api('DELETE', `/_emulator/workspaces/${encodeURIComponent(id)}`);
    } catch (error) {
      deleting.delete(id);
      throw error;
    }
    // Its keys went with it: this tab stops holding them (D-852).
    syncHeldKeys(id, undefined);
    chooseWorkspace(undefined, { replace: true });
    return `Deleted ${id} and everything in it.`;
  });
});
