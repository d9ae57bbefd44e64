// The keys this tab can chat with (D-852): keys it minted or was handed, per workspace,
// in sessionStorage (this tab only, kept over a reload, gone with the tab). Only keys
// with `chat:write` are kept, and a key is dropped as soon as the workspace's key list
// shows it revoked, expired or gone. Secrets are never shown from here.

const STORE = 'svc-emulator-ui-keys';

function read() {
  try {
    const all = JSON.parse(sessionStorage.getItem(STORE) ?? '{}');
    return all && typeof all === 'object' ? all : {};
  } catch {
    return {};
  }
}

function write(all) {
  const kept = Object.fromEntries(Object.entries(all).filter(([, keys]) => keys.length));
  if (Object.keys(kept).length) sessionStorage.setItem(STORE, JSON.stringify(kept));
  else sessionStorage.removeItem(STORE);
}

/** The keys this tab holds for `workspaceId`: `{ id?, name, prefix, secret, how }`. */
export function heldKeys(workspaceId) {
  const keys = read()[workspaceId];
  return Array.isArray(keys) ? keys : [];
}

/** Keeps a key with `chat:write` for the chat (answers whether it was kept). */
export function holdKey(workspaceId, key) {
  if (!key.scopes?.includes('chat:write')) return false;
  const all = read();
  const others = heldKeys(workspaceId).filter((k) => k.prefix !== key.prefix);
  all[workspaceId] = [{ id: key.id, name: key.name, prefix: key.prefix, secret: key.secret, how: key.how }, ...others];
  write(all);
  return true;
}

/** Forgets one key (refused, revoked). */
export function dropKey(workspaceId, prefix) {
  const all = read();
  all[workspaceId] = heldKeys(workspaceId).filter((k) => k.prefix !== prefix);
  write(all);
}

/**
 * Keeps only the keys the workspace still lists as active (by id, or by prefix for a
 * pasted key); `active` is undefined when the workspace is gone.
 */
export function syncHeldKeys(workspaceId, active) {
  const held = heldKeys(workspaceId);
  if (!held.length) return;
  const kept = active ? held.filter((k) => active.some((a) => (k.id ? a.id === k.id : a.prefix === k.prefix))) : [];
  if (kept.length === held.length) return;
  const all = read();
  all[workspaceId] = kept;
  write(all);
}

/** Forgets every key (after a reset to the fixtures: the keys minted since are gone). */
export function forgetHeldKeys() {
  sessionStorage.removeItem(STORE);
}
