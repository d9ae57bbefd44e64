// A workspace's keys through the console routes (D-851): the list (prefix, never a
// secret), mint (the secret shown once, in the answer's box, with a copy button) and
// revoke. A refusal, such as a third active key, shows the emulator's problem document.
import { act, checked } from './act.js';
import { api } from './api.js';
import { confirmButton, fillRows, h, shortTime } from './dom.js';
import { dropKey, holdKey } from './held-keys.js';
import { route } from './router.js';

const panel = document.getElementById('workspace-detail');
const form = document.getElementById('key-mint');
const box = document.getElementById('secret-box');
const secretInput = document.getElementById('secret-value');
let boxWorkspace;
// Every scope there is: the mint form offers each (rendered from the registry).
const ALL_SCOPES = form.querySelectorAll('input[name="scopes"]').length;
const scopeText = (scopes) => (scopes.length === ALL_SCOPES ? `all ${ALL_SCOPES} scopes` : scopes.join(' '));

const keysPath = (workspaceId) => `/workspaces/${encodeURIComponent(workspaceId)}/keys`;

/** Whether a key can be used now: not revoked, not expired on the emulated clock. */
export function isActive(key, now) {
  return !key.revokedAt && (!key.expiresAt || key.expiresAt > now);
}

function keyStatus(key, now) {
  if (key.revokedAt) return h('span', { class: 'badge failed', 'data-status': 'revoked' }, `revoked ${shortTime(key.revokedAt)}`);
  if (key.expiresAt && key.expiresAt <= now) return h('span', { class: 'badge failed', 'data-status': 'expired' }, `expired ${shortTime(key.expiresAt)}`);
  return h('span', { class: 'badge ready', 'data-status': 'active' }, key.expiresAt ? `active until ${shortTime(key.expiresAt)}` : 'active');
}

/** The keys table of the chosen workspace (`now`: the emulated clock). */
export function renderKeys(keys, now) {
  const rows = keys.data.map((k) => {
    const active = isActive(k, now);
    const revoke = active
      ? h(
          'button',
          // Its name says which key (D-1188): every row has a Revoke.
          {
            type: 'button',
            class: 'small danger',
            'data-revoke': k.id,
            'data-name': k.name,
            'data-prefix': k.prefix,
            'aria-label': `Revoke ${k.name} (${k.prefix}…)`,
          },
          'Revoke',
        )
      : '';
    if (revoke) confirmButton(revoke, () => revokeKey(revoke.dataset));
    return h(
      'tr',
      { 'data-id': k.id, class: active ? undefined : 'inactive' },
      h('td', {}, k.name),
      h('td', { class: 'nowrap' }, h('code', {}, `${k.prefix}…`)),
      h('td', { class: 'hint' }, scopeText(k.scopes)),
      h('td', {}, k.env),
      h('td', { class: 'nowrap' }, shortTime(k.createdAt)),
      h('td', {}, keyStatus(k, now)),
      h('td', {}, revoke),
    );
  });
  fillRows(panel.querySelector('[data-rows="keys"]'), rows, 7, 'No keys: mint one below.');
  panel.querySelector('[data-count="keys"]').textContent =
    `(${keys.data.filter((k) => isActive(k, now)).length} active of ${keys.data.length}${keys.hasMore ? '+' : ''})`;
}

function revokeKey({ revoke: keyId, name, prefix }) {
  const workspaceId = route.workspace;
  return act(panel, async () => {
    await api('DELETE', `${keysPath(workspaceId)}/${encodeURIComponent(keyId)}`);
    dropKey(workspaceId, prefix);
    return `Revoked ${name} (${prefix}…): requests with it now answer 401 svc.api_key.invalid.`;
  });
}

/**
 * Shows a secret the emulator just answered, once: it lives only in this box, which
 * empties on Done, on another workspace, on leaving the section, and is never stored.
 */
export function revealSecret(workspaceId, key, kept) {
  boxWorkspace = workspaceId;
  secretInput.value = key.secret;
  document.getElementById('secret-meta').textContent =
    `${key.name ?? 'key'} · ${key.prefix}… · ${scopeText(key.scopes)}${kept ? ' · this tab keeps it for the chat' : ''}`;
  box.hidden = false;
  secretInput.focus();
  secretInput.select();
}

/** Empties the secret box (and forgets the secret) unless it belongs to `workspaceId` in the open section. */
export function hideSecret(workspaceId) {
  if (workspaceId !== undefined && workspaceId === boxWorkspace && route.section === 'workspaces') return;
  secretInput.value = '';
  box.hidden = true;
  boxWorkspace = undefined;
}

document.getElementById('secret-copy').addEventListener('click', async () => {
  const note = panel.querySelector('.note');
  try {
    await navigator.clipboard.writeText(secretInput.value);
    note.textContent = 'Copied the key to the clipboard.';
  } catch {
    secretInput.select();
    note.textContent = 'The browser would not copy: the key is selected, press Ctrl+C (⌘C).';
  }
  note.hidden = false;
});

document.getElementById('secret-done').addEventListener('click', () => hideSecret(undefined));

function scopeCount() {
  const boxes = [...form.querySelectorAll('input[name="scopes"]')];
  const n = boxes.filter((b) => b.checked).length;
  form.querySelector('[data-scope-count]').textContent = n === boxes.length ? `all ${n}` : `${n} of ${boxes.length}`;
}

form.addEventListener('change', scopeCount);
form.addEventListener('click', (event) => {
  const which = event.target.closest('button[data-scopes]')?.dataset.scopes;
  if (!which) return;
  for (const b of form.querySelectorAll('input[name="scopes"]')) b.checked = which === 'all';
  scopeCount();
});

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const workspaceId = route.workspace;
  void act(
    panel,
    async () => {
      const body = {
        name: form.elements.name.value.trim(),
        scopes: [...form.querySelectorAll('input[name="scopes"]:checked')].map((b) => b.value),
        env: form.elements.env.value,
      };
      const expiresAt = form.elements.expiresAt.value.trim();
      if (expiresAt) body.expiresAt = expiresAt;
      // The emulator checks the rest (name, scopes, expiry, two active keys) and says why.
      checked(workspaceId ? [] : [{ field: 'workspace', reason: 'choose a workspace first' }]);
      const key = await api('POST', keysPath(workspaceId), body);
      const kept = holdKey(workspaceId, { ...key, how: 'minted' });
      revealSecret(workspaceId, key, kept);
      return `Minted ${key.name} (${key.prefix}…).`;
    },
    form,
  );
});
